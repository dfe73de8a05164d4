/**
 * The value of one series in a Prometheus text exposition, e.g.
 * sample(text, 'http_requests_total{method="GET",route="/mcp",status="200"}'); 0 when absent (a
 * counter that never moved has no line).
 */
export function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
