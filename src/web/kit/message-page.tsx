import { Layout } from '../layout.js';

/** A page with one message: refusals (CSRF, not found, rate limits) that have no form to redisplay. */
export function MessagePage(props: {
  title: string;
  message: string;
  signedInAs?: string | null;
  csrfToken?: string | null;
  link?: { href: string; text: string };
}) {
  return (
    <Layout title={props.title} signedInAs={props.signedInAs} csrfToken={props.csrfToken}>
      <h1>{props.title}</h1>
      <p role="alert" class="notice warn">
        {props.message}
      </p>
      {props.link ? (
        <p>
          <a href={props.link.href}>{props.link.text}</a>
        </p>
      ) : null}
    </Layout>
  );
}
