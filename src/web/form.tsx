/**
 * Moved to kit/fields.tsx. The team pages still import from here until phase B of issue 17 moves
 * them onto the kit; then this file goes.
 */
export { Field, type FieldProps, FormError, Notice } from './kit/fields.js';
