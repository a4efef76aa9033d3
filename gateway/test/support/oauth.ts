import type * as Oauth from 'oauth4webapi' with { 'resolution-mode': 'import' };
import { responseValidator } from './openapi-contract';
import { gw, memberWithKey, startStack, type Stack } from './stack';

/**
 * oauth4webapi — a certified OAuth client none of us wrote — is ESM-only: it is loaded with a dynamic
 * import (jest compiles it, see jest.config.js).
 */
export type OAuthLib = typeof Oauth;
export const loadOauth = (): Promise<OAuthLib> => import('oauth4webapi');
export type { Oauth };

export const PASSWORD = 'a long password';
/** Nothing listens here: the tests read the redirect's Location instead of following it. */
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** The answer, as text and as JSON if it is JSON. */
async function readBody(res: Response): Promise<{ text: string; body: unknown }> {
  const text = await res.text();
  try {
    return { text, body: JSON.parse(text) };
  } catch {
    return { text, body: undefined };
  }
}

/** fetch for oauth4webapi: every answer it gets is held against the OpenAPI document, as gw() does. */
async function checkedFetch(url: string, init: RequestInit & { method: string }): Promise<Response> {
  const res = await fetch(url, init);
  const { body } = await readBody(res.clone());
  responseValidator().check({
    method: init.method,
    path: url,
    status: res.status,
    headers: res.headers,
    body,
  });
  return res;
}

function httpOptions(oauth: OAuthLib) {
  // The test stack speaks plain http on loopback.
  return { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: checkedFetch };
}

/** The client library, the discovered server and the stack, as every OAuth test needs them. */
export interface OAuthContext {
  oauth: OAuthLib;
  as: Oauth.AuthorizationServer;
  stack: Stack;
  /** Options for every oauth4webapi request: plain http allowed, answers checked. */
  http: ReturnType<typeof httpOptions>;
}

export async function oauthContext(stack: Stack): Promise<OAuthContext> {
  const oauth = await loadOauth();
  const http = httpOptions(oauth);
  const issuer = new URL(stack.gateway);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...http }),
  );
  return { oauth, as, stack, http };
}

export interface RegisteredApp {
  id: number;
  client_id: string;
  client_secret: string | null;
  redirect_uris: string[];
}

/** Registers an app through the API with a key that has the `keys` scope. */
export async function registerApp(
  stack: Stack,
  key: string,
  body: { name?: string; redirect_uris?: string[]; client_type?: 'confidential' | 'public' } = {},
): Promise<RegisteredApp> {
  const res = await gw(stack, 'POST', '/api/v1/oauth/apps', {
    key,
    body: { name: 'Test app', redirect_uris: [REDIRECT_URI], ...body },
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as RegisteredApp;
}

export interface PageAnswer {
  status: number;
  location: string | null;
  text: string;
}

/**
 * A person's browser, reduced to cookies and forms, talking to the gateway without following redirects.
 * Answers of the API (the authorization endpoint) are held against the document; the account pages
 * under /account are not part of it.
 */
export class Visitor {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly stack: Stack) {}

  async get(path: string): Promise<PageAnswer> {
    return this.send('GET', path);
  }

  async post(path: string, form: Record<string, string>): Promise<PageAnswer> {
    return this.send('POST', path, new URLSearchParams(form).toString());
  }

  async logIn(username: string, password = PASSWORD): Promise<void> {
    const page = await this.get('/account/login');
    const answer = await this.post('/account/login', { _csrf: csrfOf(page.text), username, password });
    if (answer.status !== 303 || !this.cookies.has('cp_session'))
      throw new Error(`login failed: ${answer.status}`);
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private async send(method: string, path: string, body?: string): Promise<PageAnswer> {
    const url = new URL(path, this.stack.gateway);
    const cookie = this.cookieHeader();
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      body,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      this.cookies.set(name, value);
    }
    const answer = await readBody(res);
    if (!url.pathname.startsWith('/account/')) {
      responseValidator().check({
        method,
        path,
        status: res.status,
        headers: res.headers,
        body: answer.body,
      });
    }
    const text = answer.text;
    return { status: res.status, location: res.headers.get('location'), text };
  }
}

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

const unescape = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The hidden fields of the consent form, as the browser would post them back. */
export function consentFields(html: string): Record<string, string> {
  const form = /<form id="consent-form"[\s\S]*?<\/form>/.exec(html)?.[0] ?? '';
  const fields: Record<string, string> = {};
  for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" \/>/g)) {
    fields[name!] = unescape(value!);
  }
  return fields;
}

/**
 * Follows an authorization request to the consent page and answers it. Returns the final answer: a
 * 303 back to the app, or whatever stopped the flow earlier (an error page, a redirect with an error).
 */
export async function answerConsent(
  visitor: Visitor,
  authorizeUrl: URL,
  decision: 'allow' | 'deny' = 'allow',
): Promise<PageAnswer> {
  const start = await visitor.get(authorizeUrl.pathname + authorizeUrl.search);
  if (start.status !== 302 || !start.location?.startsWith('/account/oauth/authorize')) return start;
  const page = await visitor.get(start.location);
  if (page.status !== 200) return page;
  return visitor.post('/account/oauth/authorize', { ...consentFields(page.text), decision });
}

export interface AuthorizationAttempt {
  url: URL;
  state: string;
  verifier: string;
}

/** An authorization request with PKCE (S256) and a state, as oauth4webapi's README builds one. */
export async function authorizationRequest(
  ctx: OAuthContext,
  clientId: string,
  params: Record<string, string> = {},
): Promise<AuthorizationAttempt> {
  const { oauth, as } = ctx;
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'read write',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  }).toString();
  return { url, state, verifier };
}

export function clientAuth(ctx: OAuthContext, app: RegisteredApp, method: 'basic' | 'post' = 'basic') {
  if (!app.client_secret) return ctx.oauth.None();
  return method === 'basic'
    ? ctx.oauth.ClientSecretBasic(app.client_secret)
    : ctx.oauth.ClientSecretPost(app.client_secret);
}

/** The whole code flow: consent, then the code exchanged with its PKCE verifier. */
export async function codeFlow(
  ctx: OAuthContext,
  app: RegisteredApp,
  visitor: Visitor,
  params: Record<string, string> = {},
) {
  const { oauth, as } = ctx;
  const client = { client_id: app.client_id };
  const attempt = await authorizationRequest(ctx, app.client_id, params);
  const answer = await answerConsent(visitor, attempt.url);
  if (answer.status !== 303 || !answer.location)
    throw new Error(`consent failed: ${answer.status} ${answer.text}`);
  const callback = oauth.validateAuthResponse(as, client, new URL(answer.location), attempt.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth(ctx, app),
    callback,
    REDIRECT_URI,
    attempt.verifier,
    ctx.http,
  );
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

/** A member with a key that may manage apps, and a browser signed in as them. */
export async function signedInMember(stack: Stack, scopes = ['read', 'write', 'keys']) {
  const user = await memberWithKey(stack, scopes);
  const visitor = new Visitor(stack);
  await visitor.logIn(user.username);
  return { ...user, visitor };
}

/** `GET /users/me` with an access token (or key): who the gateway says the caller is. */
export const whoAmI = (stack: Stack, token: string) => gw(stack, 'GET', '/api/v1/users/me', { key: token });

/** An OAuth test file's context, with its callers bound to its stack. */
export interface OAuthStack extends OAuthContext {
  me(token: string): ReturnType<typeof whoAmI>;
  member(scopes?: string[]): ReturnType<typeof signedInMember>;
}

/**
 * The stack of an OAuth test file, started before its tests and stopped after them; read its fields
 * inside the tests. Every page view and token request counts against the anonymous budget of
 * 127.0.0.1, so the budget is lifted.
 */
export function oauthStackFor(label: string): OAuthStack {
  let started: OAuthContext | undefined;
  beforeAll(async () => {
    started = await oauthContext(
      await startStack(label, { ANON_HOURLY_LIMIT: '100000', ANON_DAILY_LIMIT: '100000' }),
    );
  });
  afterAll(() => started?.stack.stop());
  const ctx = (): OAuthContext => {
    if (!started) throw new Error(`the ${label} stack has not started`);
    return started;
  };
  return {
    get oauth() {
      return ctx().oauth;
    },
    get as() {
      return ctx().as;
    },
    get stack() {
      return ctx().stack;
    },
    get http() {
      return ctx().http;
    },
    me: (token) => whoAmI(ctx().stack, token),
    member: (scopes) => signedInMember(ctx().stack, scopes),
  };
}
