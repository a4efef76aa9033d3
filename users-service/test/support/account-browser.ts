import { signIdentity } from '@community/http-kit';
import type { UsersHarness } from './users-harness';

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  setCookies: string[];
}

export type Form = Record<string, string | string[]>;

let visitors = 0;

/**
 * A cookie-keeping browser that reaches the account pages the way the gateway forwards them: signed,
 * anonymous, with a client address, and without following redirects.
 */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly h: UsersHarness,
    readonly ip = `10.77.${Math.floor(++visitors / 250)}.${visitors % 250}`,
  ) {}

  get(path: string, headers: Record<string, string> = {}) {
    return this.send('GET', path, { headers });
  }

  post(path: string, form: Form, headers: Record<string, string> = {}) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) {
      for (const item of [value].flat()) body.append(name, item);
    }
    return this.send('POST', path, {
      body: body.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
  }

  async send(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
    const { INTERNAL_TOKEN } = this.h.config;
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(this.h.url + path, {
      method,
      redirect: 'manual',
      body: init.body,
      headers: {
        ...signIdentity(INTERNAL_TOKEN, { method, url: path, actor: null, clientIp: this.ip }),
        ...(cookie ? { cookie } : {}),
        ...init.headers,
      },
    });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair = ''] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (/expires=Thu, 01 Jan 1970|max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await res.text(), setCookies } satisfies Page;
  }

  /** The CSRF token of the form on `path`, as a user who opened the page would submit it. */
  async csrf(path: string): Promise<string> {
    return csrfOf(await this.get(path));
  }
}

export const csrfOf = (page: Page) => /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
