import type { Child } from 'hono/jsx';

export interface Column<Row> {
  /** The column heading; on phones also each cell's label. Empty for an action column. */
  label: string;
  cell: (row: Row) => Child;
}

/**
 * A table on wide screens and one card per row on phones (style.ts `table.cards`): each cell carries
 * its column's label, so nothing needs to scroll sideways and no cell is squeezed until its words
 * break letter by letter.
 */
export function CardTable<Row>(props: { caption?: string; columns: Column<Row>[]; rows: Row[] }) {
  return (
    <table class="cards">
      {props.caption ? <caption class="visually-hidden">{props.caption}</caption> : null}
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th scope="col">{column.label || <span class="visually-hidden">Actions</span>}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr>
            {props.columns.map((column) => (
              <td data-label={column.label}>{column.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Something wider than a phone (a wide table) scrolling sideways inside its own box. The box is
 * focusable and named, so keyboard users can reach and scroll it (WCAG 2.1.1; axe
 * scrollable-region-focusable).
 */
export function ScrollBox(props: { label: string; children?: Child }) {
  return (
    <section class="scroll-box" tabindex={0} aria-label={props.label}>
      {props.children}
    </section>
  );
}
