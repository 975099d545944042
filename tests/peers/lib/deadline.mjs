// Every peer script ends by itself: if its work is not done within `ms`,
// it says what it was waiting for and exits non-zero.
export function exitAfter(ms, script, waitingFor) {
  const timer = setTimeout(() => {
    console.error(`${script}: no result within ${ms} ms; still waiting for ${waitingFor()}`);
    process.exit(3);
  }, ms);
  timer.unref();
}

export function fail(script, why) {
  console.error(`${script}: FAIL ${why}`);
  process.exit(1);
}
