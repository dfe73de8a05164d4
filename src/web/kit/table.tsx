import type { Child } from 'hono/jsx';

export interface Column<Row> {
  /** The column heading; on phones also each cell's label. Empty for an action column. */
  label: string;
  cell: (row: Row) => Child;
}

/**
 * A table on wide screens and one card per row on phones (style.ts `table.cards`): each cell carries
 * its column's label, so nothing needs to scroll sideways and no cell is squeezed until its words
 * break letter by letter. Each cell's content is one element (`div.cell`): on phones the cell is a
 * two-column grid, label and value, and a value made of several nodes must stay in one grid cell.
 */
export function CardTable<Row>(props: {
  caption?: string;
  columns: Column<Row>[];
  rows: Row[];
  /**
   * On phones, this column (by index) is the card's title, first and full width with no label: the
   * name or email a card is about.
   */
  title?: number;
}) {
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
            {props.columns.map((column, i) => (
              <td data-label={column.label} class={i === props.title ? 'card-title' : undefined}>
                <div class="cell">{column.cell(row)}</div>
              </td>
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
