/** Generic pages: errors and simple messages. */
import type { ComponentChildren } from 'preact';
import type { SiteContext } from '../context.ts';
import { Layout } from './layout.tsx';

export function MessagePage({ ctx, title, children, narrow = true, noAlternates }: { ctx: SiteContext; title: string; children: ComponentChildren; narrow?: boolean; noAlternates?: boolean }) {
  return (
    <Layout ctx={ctx} title={title} narrow={narrow} noAlternates={noAlternates}>
      <h1>{title}</h1>
      {children}
    </Layout>
  );
}

/** An error page: what happened, what to do, and the request id to quote. */
export function ErrorPage({ ctx, title, message, action }: { ctx: SiteContext; title: string; message: string; action?: { href: string; label: string } }) {
  return (
    <MessagePage ctx={ctx} title={title} noAlternates>
      <p>{message}</p>
      <p>
        <a class="button" href={action?.href ?? '/'}>{action?.label ?? ctx.t.errors.home}</a>
      </p>
      <p class="meta">{ctx.t.errors.reference(ctx.requestId)}</p>
    </MessagePage>
  );
}
