/**
 * Memoises `build` per key object (a database, a config): built on first use, and dropped with the
 * key. For work that depends only on that object and is too costly to repeat per request, such as
 * prepared statements and derived keys.
 */
export function oncePer<K extends object, V>(build: (key: K) => V): (key: K) => V {
  const cache = new WeakMap<K, V>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = build(key);
      cache.set(key, value);
    }
    return value;
  };
}
