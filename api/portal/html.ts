import { escapeHtml } from '../../core/shared/html.js';

/** HTML that is already safe to insert (built by `html`, or markup Lore wrote itself). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}


type Part = Html | string | number | boolean | null | undefined | Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (Array.isArray(part)) return part.map(render).join('');
  if (part instanceof Html) return part.value;
  return escapeHtml(String(part));
}

/** A template whose interpolated values are escaped, except `Html` (nested templates); arrays are joined. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}
