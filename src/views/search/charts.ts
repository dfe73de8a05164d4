import 'chartist/dist/index.css';
import { BarChart, LineChart } from 'chartist';
import { el } from '../shared/dom.js';

/**
 * The search view's charts, drawn by Chartist (SVG, ~30 KB minified for bars and lines): every bar
 * and point is an element, so they take the theme's colours from CSS, read well at any width, and
 * tests can count them. Colours come from class names, never inline styles.
 */
export interface Series {
  name: string;
  className: string;
  values: number[];
}

function figure(
  caption: string,
  summary: string,
  legend: Series[] | null,
): {
  node: HTMLElement;
  chart: HTMLElement;
} {
  const chart = el('div', { class: 'chart' });
  const node = el(
    'figure',
    { 'aria-label': `${caption}: ${summary}` },
    el('figcaption', {}, caption),
    legend && legend.length > 1
      ? el(
          'ul',
          { class: 'legend' },
          ...legend.map((s) => el('li', {}, el('span', { class: `swatch ${s.className}` }), s.name)),
        )
      : null,
    chart,
  );
  return { node, chart };
}

/** A platform as an axis label: short enough for a phone's width. */
function platformLabel(platform: string): string {
  return platform === 'youtube_comment' ? 'yt comments' : platform.replace(/_/g, ' ');
}

/** Horizontal bars, one per platform, stacked by series (sentiment, emotion) when there are several. */
export function platformBars(caption: string, platforms: string[], series: Series[]): HTMLElement {
  const summary = platforms
    .map((p, i) => `${p} ${series.map((s) => `${s.values[i] ?? 0} ${s.name}`).join(', ')}`)
    .join('; ');
  const { node, chart } = figure(caption, summary, series);
  node.dataset.platforms = platforms.join(',');
  const height = platforms.length * 34 + 36;
  queueMicrotask(() => {
    new BarChart(
      chart,
      {
        labels: platforms.map(platformLabel),
        series: series.map((s) => ({ name: s.name, className: s.className, data: s.values })),
      },
      {
        horizontalBars: true,
        stackBars: true,
        reverseData: true,
        height: `${height}px`,
        axisY: { offset: 96, showGrid: false },
        axisX: { onlyInteger: true },
        chartPadding: { top: 4, right: 18, bottom: 0, left: 0 },
      },
    );
  });
  return node;
}

/** Posts per day as a line with a point per day; breakout days get the `breakout` point class. */
export function timeline(days: string[], perDay: number[], breakoutDays: Set<string>): HTMLElement {
  const busiest = days.reduce((best, _day, i) => ((perDay[i] ?? 0) > (perDay[best] ?? 0) ? i : best), 0);
  const summary = `${days.length} days from ${days[0]} to ${days[days.length - 1]}, most on ${days[busiest]} (${perDay[busiest]})`;
  const { node, chart } = figure('Posts per day', summary, null);
  node.dataset.days = String(days.length);
  queueMicrotask(() => {
    const step = Math.max(1, Math.ceil(days.length / Math.max(2, Math.floor(chart.clientWidth / 56))));
    const line = new LineChart(
      chart,
      { labels: days, series: [{ name: 'posts', className: 'ct-series-posts', data: perDay }] },
      {
        low: 0,
        showArea: true,
        fullWidth: true,
        height: '190px',
        axisY: { onlyInteger: true, offset: 34 },
        axisX: {
          showGrid: false,
          labelInterpolationFnc: (value: unknown, index: number) =>
            index % step === 0 ? String(value).slice(5) : null,
        },
        chartPadding: { top: 10, right: 30, bottom: 0, left: 0 },
      },
    );
    line.on(
      'draw',
      (ctx: {
        type: string;
        index: number;
        element: { addClass(c: string): void; attr(a: Record<string, string>): void };
      }) => {
        if (ctx.type !== 'point') return;
        const day = days[ctx.index] ?? '';
        ctx.element.attr({ 'data-day': day });
        if (breakoutDays.has(day)) ctx.element.addClass('breakout');
      },
    );
  });
  return node;
}
