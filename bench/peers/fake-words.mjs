// The content every peer streams, the same as Inlay's sim model answering "::delay 20\n::words 100"
// (docs/sim-model.md): the NATO alphabet in lower case, cycled, one word per delta ("alpha ", "bravo ",
// …, the last without its space), word i due 20 ms × i after the first on the model's own clock (a
// late word is followed by a shorter wait, never a longer one). No network, no key.
const NATO = [
  "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima",
  "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
  "xray", "yankee", "zulu",
];

export const WORDS = 100;
export const DELAY_MS = 20;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Yields the words at their due times. */
export async function* pacedWords(count = WORDS, delayMs = DELAY_MS) {
  let due = 0;
  for (let index = 0; index < count; index++) {
    if (index === 0) due = performance.now();
    else {
      due += delayMs;
      await sleep(Math.max(0, due - performance.now()));
    }
    yield NATO[index % NATO.length] + (index < count - 1 ? " " : "");
  }
}
