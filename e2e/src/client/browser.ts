import { DEFAULT_TIMEOUT_MS } from './http';

export interface Page {
  status: number;
  location: string | null;
  html: string;
}

/**
 * The account pages the way a browser without JavaScript uses them: a cookie jar, form posts with
 * the hidden fields of the page they came from, redirects read rather than followed.
 */
export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(
    private readonly baseUrl: string,
    /** The address this browser's requests come from (X-Forwarded-For). */
    readonly ip: string,
  ) {}

  get(path: string): Promise<Page> {
    return this.send('GET', path);
  }

  /** Posts an urlencoded form; repeated names (checkboxes) are repeated pairs. */
  postForm(path: string, fields: [string, string][]): Promise<Page> {
    return this.send('POST', path, new URLSearchParams(fields).toString());
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  /** The Cookie header this browser would send. */
  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private async send(method: string, path: string, form?: string): Promise<Page> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, accept: 'text/html' };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    if (form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: form,
      redirect: 'manual',
      signal: AbortSignal.timeout(DEFAULT_TIMEOUT_MS),
    });
    for (const line of res.headers.getSetCookie()) this.remember(line);
    return { status: res.status, location: res.headers.get('location'), html: await res.text() };
  }

  private remember(setCookie: string): void {
    const [pair = '', ...attributes] = setCookie.split(';');
    const eq = pair.indexOf('=');
    if (eq <= 0) return;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=.*1970/i.test(a));
    if (expired || value === '') this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
}

/** The value of the hidden input `name` in a page's HTML. */
export function hiddenInput(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  if (!match?.[1]) throw new Error(`the page has no hidden input "${name}":\n${html.slice(0, 800)}`);
  return match[1];
}
