// The npm `eventsource` package resumes from Last-Event-ID after sluiced
// cuts it off as a slow consumer: every event arrives exactly once, in
// order, across the reconnects (see lib/resume.mjs).
// Usage: node eventsource_resume.mjs PORT   (sluiced set up as lib/resume.mjs says)
import { EventSource } from 'eventsource';
import { exitAfter, fail } from './lib/deadline.mjs';
import { publishAll } from './lib/publisher.mjs';
import { checkResume, kBurst, resumeBodies } from './lib/resume.mjs';

const script = 'eventsource_resume';
const port = Number(process.argv[2]);
const topic = 'peer-eventsource';
const bodies = resumeBodies();
const received = [];
let opens = 0;
let published = false;
exitAfter(30000, script, () => `event ${received.length} of ${bodies.length} (${opens} opens)`);

const source = new EventSource(`http://127.0.0.1:${port}/sse/${topic}`);
source.addEventListener('sluice-reset', (e) => fail(script, `told to reset: ${e.data}`));
source.onopen = () => {
  if (++opens > 1) return;
  publishAll(port, topic, bodies, kBurst).then(() => { published = true; finishIfDone(); },
    (e) => fail(script, e.message));
};
source.onmessage = (e) => {
  received.push({ id: e.lastEventId, data: e.data });
  finishIfDone();
};

function finishIfDone() {
  if (!published || received.length < bodies.length) return;
  source.close();
  const wrong = checkResume(received, opens, bodies);
  if (wrong) fail(script, wrong);
  console.log(`${script}: ${bodies.length} events exactly once, in order, over ${opens} connections`);
  process.exit(0);
}
