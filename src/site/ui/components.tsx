/** Small pure components shared by the pages. They never query; they render their props. */
import type { ComponentChildren } from 'preact';
import type { SiteContext } from '../context.ts';
import { textDirection } from '../../i18n/locales.ts';

/** The hidden CSRF field every state-changing form carries. */
export function CsrfField({ ctx }: { ctx: SiteContext }) {
  return <input type="hidden" name="_csrf" value={ctx.csrfToken()} />;
}

/** A POST form with its CSRF token. `once` makes a second tap do nothing (with JavaScript). */
export function PostForm(props: { ctx: SiteContext; action: string; once?: boolean; class?: string; children: ComponentChildren; novalidate?: boolean }) {
  return (
    <form method="post" action={props.action} class={props.class} data-once={props.once ? '' : undefined} novalidate={props.novalidate}>
      <CsrfField ctx={props.ctx} />
      {props.children}
    </form>
  );
}

export interface FieldProps {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'number' | 'tel';
  value?: string | number | null;
  error?: string | null;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  inputmode?: 'numeric' | 'email' | 'text' | 'decimal';
  pattern?: string;
  maxLength?: number;
  min?: number;
  max?: number;
  step?: string;
  class?: string;
  autofocus?: boolean;
  placeholder?: string;
}

/** A labelled input with its hint and error, wired for screen readers (aria-describedby). */
export function Field(p: FieldProps) {
  const id = `f-${p.name}`;
  const describedBy = [p.hint ? `${id}-hint` : null, p.error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <input
        id={id}
        name={p.name}
        // Preact's input types are a union per type; the attributes used here are valid for all four.
        type={(p.type ?? 'text') as 'text'}
        value={p.value ?? ''}
        required={p.required}
        autocomplete={p.autocomplete}
        inputmode={p.inputmode}
        pattern={p.pattern}
        maxLength={p.maxLength}
        min={p.min}
        max={p.max}
        step={p.step}
        class={p.class}
        autofocus={p.autofocus}
        placeholder={p.placeholder}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy}
      />
      {p.hint ? <span class="hint" id={`${id}-hint`}>{p.hint}</span> : null}
      {p.error ? <span class="field-error" id={`${id}-error`}>{p.error}</span> : null}
    </div>
  );
}

export interface SelectProps {
  name: string;
  label: string;
  options: ReadonlyArray<{ value: string; label: string }>;
  value?: string | null;
  /** Label of the empty first option ("any"). */
  empty?: string;
  error?: string | null;
}

export function Select(p: SelectProps) {
  const id = `f-${p.name}`;
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <select id={id} name={p.name} aria-invalid={p.error ? 'true' : undefined} aria-describedby={p.error ? `${id}-error` : undefined}>
        {p.empty !== undefined ? <option value="">{p.empty}</option> : null}
        {p.options.map((o) => (
          <option value={o.value} selected={o.value === p.value}>
            {o.label}
          </option>
        ))}
      </select>
      {p.error ? <span class="field-error" id={`${id}-error`}>{p.error}</span> : null}
    </div>
  );
}

export function Notice({ kind, children, role }: { kind?: 'ok' | 'warn' | 'bad'; role?: 'status' | 'alert'; children: ComponentChildren }) {
  return (
    <div class={kind ? `notice ${kind}` : 'notice'} role={role}>
      {children}
    </div>
  );
}

export { euros } from '../../i18n/format.ts';

/**
 * A link back to a list ("← My consultations"): the arrow points the way back in the page's
 * direction, leftwards in Spanish and English, rightwards in Arabic.
 */
export function BackLink({ ctx, href, children }: { ctx: SiteContext; href: string; children: ComponentChildren }) {
  return (
    <a href={href}>
      {textDirection(ctx.locale) === 'rtl' ? '→' : '←'} {children}
    </a>
  );
}
