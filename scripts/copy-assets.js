// The second half of `npm run build`: tsc emits only JavaScript, so every other file under a
// package's src/ (the services' SQL migrations, for one) is copied to the same place under dist/,
// where the compiled code looks for it next to itself.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const { references } = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8'));

function copyAssets(from, to) {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyAssets(source, target);
    else if (!entry.name.endsWith('.ts')) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(source, target);
    }
  }
}

for (const { path: config } of references) {
  const dir = path.join(root, path.dirname(config));
  copyAssets(path.join(dir, 'src'), path.join(dir, 'dist'));
}
