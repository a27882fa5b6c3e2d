/** Runs the production files in a fixed order: those that stop stack processes go last. */
const Sequencer = require('@jest/test-sequencer').default;

const LAST = ['outage.test.ts', 'chaos.test.ts'];
const rank = (p) => {
  const i = LAST.findIndex((name) => p.endsWith(name));
  return i === -1 ? 0 : i + 1;
};

class ProductionSequencer extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path));
  }
}

module.exports = ProductionSequencer;
