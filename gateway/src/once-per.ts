/**
 * `make`, run once for each key object while that object lives (a WeakMap holds the result): for
 * what the gateway derives from a value its caches keep, such as a resolved credential, so that it
 * is made once per cached value rather than on every request.
 */
export function oncePer<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}
