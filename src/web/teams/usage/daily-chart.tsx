import { type DailySeries, niceMax } from './series.js';

/** Drawing units of one day's band; the SVG stretches to the width it is given. */
const BAND = 10;
const BAR = 7;
const HEIGHT = 100;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * Tool calls per member per day as stacked bars: a small SVG drawn on the server, one colour per member
 * (colour-blind-safe palette, with gaps between stacked parts). Its labels are HTML around it, so they
 * keep their size at any width. For screen readers the SVG is one image with a summary, and the
 * figures follow as a table (visually hidden: the legend and the bars' hover titles carry them for
 * sighted readers).
 */
export function DailyCallsChart({ series, period }: { series: DailySeries; period: string }) {
  const peak = Math.max(0, ...series.totals);
  const max = niceMax(peak);
  const y = (calls: number) => (calls / max) * HEIGHT;
  const busiest = series.totals.indexOf(peak);
  const total = series.totals.reduce((a, b) => a + b, 0);
  const summary =
    total === 0
      ? `No tool calls ${period}.`
      : `${plural(total, 'call')} by ${plural(series.members.length, 'member')} ${period}; the busiest day was ${series.days[busiest]} with ${plural(peak, 'call')}. The figures follow as a table.`;
  const width = series.days.length * BAND;
  return (
    <figure class="chart">
      <figcaption id="daily-caption">Tool calls per member per day, {period}</figcaption>
      <div class="chart-frame">
        <div class="chart-y" aria-hidden="true">
          <span>{max}</span>
          <span>{max / 2}</span>
          <span>0</span>
        </div>
        <svg
          class="chart-plot"
          viewBox={`0 0 ${width} ${HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-labelledby="daily-caption daily-summary"
          focusable="false"
        >
          <title>{`Tool calls per member per day, ${period}`}</title>
          <line
            class="grid"
            x1="0"
            x2={width}
            y1={HEIGHT / 2}
            y2={HEIGHT / 2}
            vector-effect="non-scaling-stroke"
          />
          <line class="grid" x1="0" x2={width} y1="0.5" y2="0.5" vector-effect="non-scaling-stroke" />
          {series.days.map((day, i) => {
            let top = HEIGHT;
            return series.members.map((m, s) => {
              const calls = m.perDay[i] ?? 0;
              if (calls === 0) return null;
              const h = y(calls);
              top -= h;
              return (
                <rect
                  class={`series-${s}`}
                  x={i * BAND + (BAND - BAR) / 2}
                  y={top}
                  width={BAR}
                  height={h}
                  vector-effect="non-scaling-stroke"
                >
                  <title>{`${day} · ${m.label}: ${plural(calls, 'call')}`}</title>
                </rect>
              );
            });
          })}
          <line
            class="axis"
            x1="0"
            x2={width}
            y1={HEIGHT - 0.5}
            y2={HEIGHT - 0.5}
            vector-effect="non-scaling-stroke"
          />
        </svg>
      </div>
      <div class="chart-x" aria-hidden="true">
        <span>{series.days[0]}</span>
        <span>{series.days.at(-1)}</span>
      </div>
      {series.members.length ? (
        <ul class="legend" aria-label="Members">
          {series.members.map((m, s) => (
            <li>
              <span class={`swatch series-${s}`} aria-hidden="true" />
              <span class="token">{m.label}</span> <span class="muted">({plural(m.total, 'call')})</span>
            </li>
          ))}
        </ul>
      ) : null}
      <p id="daily-summary" class="visually-hidden">
        {summary}
      </p>
      {total ? (
        <div class="visually-hidden">
          <table>
            <caption>Tool calls per member per day</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col">Member</th>
                <th scope="col">Calls</th>
              </tr>
            </thead>
            <tbody>
              {series.days.flatMap((day, i) =>
                series.members.flatMap((m) =>
                  (m.perDay[i] ?? 0) > 0
                    ? [
                        <tr>
                          <td>{day}</td>
                          <td>{m.label}</td>
                          <td>{m.perDay[i]}</td>
                        </tr>,
                      ]
                    : [],
                ),
              )}
            </tbody>
          </table>
        </div>
      ) : null}
    </figure>
  );
}
