/**
 * A minimal browser stand-in for HTTP-level tests of the pages: keeps cookies, reads the CSRF field
 * from the last page, and sends forms the way a browser does (urlencoded, Origin header).
 */
let clients = 0;

export class FormClient {
  readonly cookies = new Map<string, string>();
  lastHtml = '';
  /**
   * Sent as X-Forwarded-For: each client looks like its own address to a server started with
   * TRUST_PROXY=true (others ignore it), so per-IP limits apply per simulated browser.
   */
  readonly ip: string;

  constructor(
    readonly baseUrl: string,
    ip?: string,
  ) {
    clients++;
    this.ip = ip ?? `198.51.100.${clients % 250}, 10.0.${Math.floor(clients / 250) % 250}.${clients % 250}`;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0$/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(new URL(path, this.baseUrl), {
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), 'x-forwarded-for': this.ip, ...headers },
    });
    this.keep(response);
    this.lastHtml = await response.clone().text();
    return response;
  }

  /** The `csrf` hidden field of the last page fetched. */
  csrf(): string {
    const match = /name="csrf" value="([^"]+)"/.exec(this.lastHtml);
    if (!match?.[1]) throw new Error('no csrf field on the last page');
    return match[1];
  }

  /**
   * POSTs a form. `csrf: 'auto'` (default) takes the token from the last page; null sends none.
   * `origin` defaults to the server's own origin, as a browser sends for a same-origin form.
   */
  async post(
    path: string,
    fields: Record<string, string>,
    options: { csrf?: 'auto' | string | null; origin?: string | null; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const body = new URLSearchParams(fields);
    const csrf = options.csrf === undefined || options.csrf === 'auto' ? this.csrf() : options.csrf;
    if (csrf !== null) body.set('csrf', csrf);
    const origin = options.origin === undefined ? new URL(this.baseUrl).origin : options.origin;
    const response = await fetch(new URL(path, this.baseUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: this.cookieHeader(),
        'x-forwarded-for': this.ip,
        ...(origin ? { origin } : {}),
        ...options.headers,
      },
      body,
    });
    this.keep(response);
    this.lastHtml = await response.clone().text();
    return response;
  }

  /** Loads the sign-up page and creates an account; returns the response of the POST. */
  async signUp(email: string, password: string): Promise<Response> {
    await this.get('/sign-up');
    return this.post('/sign-up', { email, password });
  }

  async signIn(email: string, password: string, extra: Record<string, string> = {}): Promise<Response> {
    await this.get('/sign-in');
    return this.post('/sign-in', { email, password, ...extra });
  }
}

export const SESSION_COOKIE = '__Host-sim_session';
