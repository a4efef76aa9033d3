// BENCH_TRACING=1: the OTLP/HTTP receiver the bench's services export every span to. It reads each
// export and drops it, so what is measured is what tracing costs the services, not a backend.
import http from 'node:http';
import process from 'node:process';
import console from 'node:console';

let exports = 0;
let bytes = 0;
const server = http.createServer((req, res) => {
  req.on('data', (chunk) => (bytes += chunk.length));
  req.on('end', () => {
    if (req.method === 'POST') exports++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(Number(process.argv[2]), '127.0.0.1');
process.on('SIGTERM', () => {
  console.log(`otlp sink: ${exports} exports, ${(bytes / 1e6).toFixed(1)} MB`);
  process.exit(0);
});
