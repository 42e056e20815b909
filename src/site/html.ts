/** Minimal server-rendered HTML: escaping and one page layout for the site. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.55;color:#1b1f24}
a{color:#0b5cad}code{background:#f2f4f7;padding:.1rem .3rem;border-radius:4px}pre{background:#f2f4f7;padding:1rem;overflow:auto;border-radius:6px}
header{border-bottom:1px solid #e3e6ea;margin-bottom:1.5rem}header a{text-decoration:none;font-weight:600;color:#1b1f24}
table{border-collapse:collapse}td,th{border-bottom:1px solid #e3e6ea;padding:.35rem .6rem;text-align:left;vertical-align:top}`;

/** A full page; `body` must already be escaped HTML. */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Consulta</title><style>${STYLE}</style></head>
<body><header><p><a href="/">Consulta</a> · <a href="/docs/api">API reference</a> · <a href="/docs/errors">Error codes</a></p></header>
<main>${body}</main></body></html>`;
}
