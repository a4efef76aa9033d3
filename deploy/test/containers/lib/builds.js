// Reads `docker-compose config` (YAML) on stdin and prints one line per service compose builds:
// "<service> <image> --build-arg K=V …", so the images are built with compose's own arguments.
const { parse } = require('yaml');

let text = '';
process.stdin.on('data', (chunk) => (text += chunk));
process.stdin.on('end', () => {
  for (const [name, service] of Object.entries(parse(text).services)) {
    if (!service.build) continue;
    const args = Object.entries(service.build.args ?? {}).map(([k, v]) => `--build-arg ${k}=${v}`);
    process.stdout.write(`${name} ${service.image} ${args.join(' ')}\n`);
  }
});
