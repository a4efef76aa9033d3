/**
 * Reads a dotenv file the way docker compose does for the plain cases used here: `NAME=value` lines,
 * `#` comments, optional single or double quotes around the value.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) throw new Error(`not a NAME=value line: ${line}`);
    const [, name, value = ''] = match;
    const quoted = /^(['"])(.*)\1$/.exec(value);
    env[name!] = quoted ? quoted[2]! : value.replace(/\s+#.*$/, '');
  }
  return env;
}
