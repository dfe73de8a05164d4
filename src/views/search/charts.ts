import 'chartist/dist/index.css';
import { BarChart } from 'chartist';
import { el } from '../common/dom.js';

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

/** Room kept right of the last day for its label (`MM-DD` at the axis font is about 32 px wide). */
const LAST_LABEL_ROOM = 36;

/**
 * Which days get an axis label: every `step`-th from the first, and always the last, the one before it
 * dropped when the two would touch.
 */
export function labelledDays(count: number, step: number): Set<number> {
  const shown = new Set<number>();
  const last = count - 1;
  for (let i = 0; i <= last; i += step) if (last - i >= step || i === last) shown.add(i);
  if (last >= 0) shown.add(last);
  return shown;
}

/**
 * Posts per day: one bar per day (they are whole numbers, so no curve is drawn between them); breakout
 * days get the `breakout` class. Every day from the first to the last has a bar, empty days a zero one.
 */
export function timeline(days: string[], perDay: number[], breakoutDays: Set<string>): HTMLElement {
  const busiest = days.reduce((best, _day, i) => ((perDay[i] ?? 0) > (perDay[best] ?? 0) ? i : best), 0);
  const summary = `${days.length} days from ${days[0]} to ${days[days.length - 1]}, most on ${days[busiest]} (${perDay[busiest]})`;
  const { node, chart } = figure('Posts per day', summary, null);
  node.dataset.days = String(days.length);
  queueMicrotask(() => {
    const width = Math.max(1, chart.clientWidth - LAST_LABEL_ROOM - 34);
    const step = Math.max(1, Math.ceil(days.length / Math.max(2, Math.floor(width / 48))));
    const labelled = labelledDays(days.length, step);
    const bars = new BarChart(
      chart,
      { labels: days, series: [{ name: 'posts', className: 'ct-series-count', data: perDay }] },
      {
        low: 0,
        height: '190px',
        axisY: { onlyInteger: true, offset: 34 },
        axisX: {
          showGrid: false,
          labelInterpolationFnc: (value: unknown, index: number) =>
            labelled.has(index) ? String(value).slice(5) : null,
        },
        chartPadding: { top: 10, right: LAST_LABEL_ROOM, bottom: 0, left: 0 },
      },
    );
    bars.on(
      'draw',
      (ctx: {
        type: string;
        index: number;
        axisX?: { stepLength?: number };
        element: { addClass(c: string): void; attr(a: Record<string, string>): void; getNode(): Element };
      }) => {
        if (ctx.type !== 'bar') return;
        const day = days[ctx.index] ?? '';
        ctx.element.attr({ 'data-day': day });
        if (breakoutDays.has(day)) ctx.element.addClass('breakout');
        // A bar as wide as most of its day's band (through the CSSOM, which the view's CSP allows).
        const band = ctx.axisX?.stepLength ?? width / Math.max(1, days.length);
        (ctx.element.getNode() as SVGElement).style.strokeWidth = `${Math.max(2, Math.floor(band * 0.7))}px`;
      },
    );
  });
  return node;
}
