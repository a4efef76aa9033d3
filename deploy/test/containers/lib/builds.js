// Reads `docker-compose config` (YAML) on stdin and prints one line per image compose builds:
// "<service> <image> [--target T] --build-arg K=V …", so the images are built with compose's own
// arguments. Services sharing an image (the e2e profile's e2e and seed-demo) are built once.
const { parse } = require('yaml');

let text = '';
process.stdin.on('data', (chunk) => (text += chunk));
process.stdin.on('end', () => {
  const seen = new Set();
  for (const [name, service] of Object.entries(parse(text).services)) {
    if (!service.build || seen.has(service.image)) continue;
    seen.add(service.image);
    const target = service.build.target ? [`--target ${service.build.target}`] : [];
    const args = Object.entries(service.build.args ?? {}).map(([k, v]) => `--build-arg ${k}=${v}`);
    process.stdout.write(`${name} ${service.image} ${[...target, ...args].join(' ')}\n`);
  }
});
