// Node's built-in `http2` client: COUNT publishes (POST /pub/{topic}), one
// after another, each on a new stream of one HTTP/2 session, as a
// kept-alive client sends them. TOKENS is one bearer token, or several
// joined by commas, taken in turn (publish i carries token i mod their
// number), as a proxy carrying several clients' requests sends them.
// Usage: node h2_token_posts.mjs URL TOPIC TOKENS COUNT
//   prints one line per publish: "status S", then "session 1".
import http2 from 'node:http2';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'h2_token_posts';
const [url, topic, tokensArg, countArg] = process.argv.slice(2);
const tokens = tokensArg.split(',');
const count = Number(countArg);
let done = 0;
exitAfter(20000, script, () => `${done}/${count} publishes answered`);

let sessions = 0;
const session = http2.connect(url);
session.on('connect', () => ++sessions);
session.on('error', (e) => fail(script, `session: ${e.message}`));

function publish() {
  const req = session.request({
    ':method': 'POST',
    ':path': `/pub/${topic}`,
    authorization: `Bearer ${tokens[done % tokens.length]}`,
  });
  req.on('response', (headers) => console.log(`status ${headers[':status']}`));
  req.on('error', (e) => fail(script, `publish ${done}: ${e.message}`));
  req.resume();
  req.on('end', () => {
    if (++done < count) return publish();
    console.log(`session ${sessions}`);
    session.close();
  });
  req.end('hello');
}

publish();
