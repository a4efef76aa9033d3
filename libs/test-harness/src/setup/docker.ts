const PROBE_TIMEOUT_MS = 5000;

/** Whether testcontainers can reach a container engine; answers within a few seconds either way. */
export async function dockerAvailable(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
    timer.unref();
  });
  const probe = import('testcontainers').then(
    async ({ getContainerRuntimeClient }) => Boolean(await getContainerRuntimeClient()),
    () => false,
  );
  try {
    return await Promise.race([probe.catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
