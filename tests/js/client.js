// The zulip-js client, as a bot author uses it, against a confab stack: reacts to a message with its reactions
// resource and, through callEndpoint, sets presence and mutes a topic; the other user's queue (long-polled with
// the client's events resource) must receive the matching events.
//
// Environment: ZULIP_URL (the server), ZULIP_HOST (the organization's host name, sent by the preloaded
// host-header.js), A_EMAIL, A_KEY, B_EMAIL, B_KEY (two members of it), CHANNEL (a channel both are subscribed to).
// Prints "OK" and exits 0, or prints what went wrong and exits 1.
'use strict';

const zulip = require('zulip-js');

const env = (name) => {
  if (!process.env[name]) throw new Error(`${name} is not set`);
  return process.env[name];
};

const check = (ok, what, got) => {
  if (!ok) throw new Error(`${what}: got ${JSON.stringify(got)}`);
};

// Long-polls queue q of client c until an event satisfies want, or fails after 10 s.
async function waitFor(c, q, what, want) {
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline) {
    const res = await c.events.retrieve({ queue_id: q.queue_id, last_event_id: q.last_event_id, dont_block: true });
    check(res.result === 'success', `GET /events for ${what}`, res);
    for (const e of res.events) {
      q.last_event_id = Math.max(q.last_event_id, e.id);
      if (want(e)) return e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${what} event arrived`);
}

async function register(c) {
  const q = await c.queues.register({ event_types: ['message', 'reaction', 'presence', 'user_topic'] });
  check(q.result === 'success' && q.queue_id, 'POST /register', q);
  return q;
}

async function main() {
  const realm = env('ZULIP_URL');
  const a = await zulip({ realm, username: env('A_EMAIL'), apiKey: env('A_KEY') });
  const b = await zulip({ realm, username: env('B_EMAIL'), apiKey: env('B_KEY') });
  const channel = env('CHANNEL');
  const qa = await register(a);
  const qb = await register(b);
  const me = await b.users.me.getProfile();
  check(me.result === 'success' && me.email === env('B_EMAIL'), 'GET /users/me', me);

  const sent = await a.messages.send({ type: 'stream', to: channel, topic: 'zulip-js', content: 'hello from zulip-js' });
  check(sent.result === 'success' && Number.isInteger(sent.id), 'POST /messages', sent);
  await waitFor(b, qb, 'message', (e) => e.type === 'message' && e.message.id === sent.id);

  // Reactions resource: POST (multipart form) and DELETE (query string) /messages/{id}/reactions.
  const added = await b.reactions.add({ message_id: sent.id, emoji_name: 'octopus' });
  check(added.result === 'success', 'reactions.add', added);
  const again = await b.reactions.add({ message_id: sent.id, emoji_name: 'octopus' });
  check(again.result === 'error' && again.msg === 'Reaction already exists.', 'reactions.add twice', again);
  const r = await waitFor(a, qa, 'reaction add', (e) => e.type === 'reaction' && e.op === 'add');
  check(r.message_id === sent.id && r.emoji_name === 'octopus' && r.emoji_code === '1f419' &&
        r.reaction_type === 'unicode_emoji' && r.user_id === me.user_id, 'reaction add event', r);
  const removed = await b.reactions.remove({ message_id: sent.id, emoji_name: 'octopus' });
  check(removed.result === 'success', 'reactions.remove', removed);
  await waitFor(a, qa, 'reaction remove', (e) => e.type === 'reaction' && e.op === 'remove' &&
                e.message_id === sent.id && e.user_id === me.user_id);

  // Presence through callEndpoint: B becomes active, A sees it.
  const p = await b.callEndpoint('/users/me/presence', 'POST', { status: 'active', new_user_input: 'true' });
  check(p.result === 'success', 'POST /users/me/presence', p);
  const pe = await waitFor(a, qa, 'presence', (e) => e.type === 'presence' && e.user_id === me.user_id);
  check(pe.email === env('B_EMAIL'), 'presence event', pe);

  // Topic preferences through callEndpoint: A mutes the topic, A's own queue hears it.
  const streamId = (await a.streams.getStreamId(channel)).stream_id;
  const m = await a.callEndpoint('/user_topics', 'POST', { stream_id: streamId, topic: 'zulip-js', visibility_policy: 1 });
  check(m.result === 'success', 'POST /user_topics', m);
  const ut = await waitFor(a, qa, 'user_topic', (e) => e.type === 'user_topic');
  check(ut.stream_id === streamId && ut.topic_name === 'zulip-js' && ut.visibility_policy === 1, 'user_topic event', ut);
  console.log('OK');
}

main().catch((err) => {
  console.log(`FAILED: ${err.message}`);
  process.exit(1);
});
