// biome-ignore lint/suspicious/noExplicitAny: the control API's answers are read loosely by tests, as in harness.ts
type Json = any;

/** A caller of a running sandbox's control API (`/__sandbox/…`): JSON in and out, and a thrown error naming the call when it fails. */
export function sandboxControl(searchUrl: string) {
  return async (method: string, path: string, body?: unknown): Promise<Json> => {
    const send = () =>
      fetch(`${searchUrl}/__sandbox${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // Once more after a dropped connection (a keep-alive socket the sandbox closed as it was reused,
    // under load): every control call sets or reads state, so sending it again is harmless.
    const res = await send().catch((error: unknown) => {
      if (error instanceof TypeError) return send();
      throw error;
    });
    const json = (await res.json()) as Json;
    if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}
