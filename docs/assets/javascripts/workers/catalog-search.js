/*
 * The site's search worker: Material for MkDocs' own (lunr), with the quirk catalog's error texts matched
 * as phrases first.
 *
 * A reader who got a 400 pastes the provider's error text into the search box. lunr ranks pages by the
 * words they share with the query (every word a prefix, titles weighed a thousand times), so a long error
 * text finds the pages whose headings share a word with it, and the catalog's entry that quotes it comes
 * late; a text that holds lunr's own syntax (":", "^", quotes, as error texts do) finds nothing at all.
 * So this worker reads the error texts of the catalog's entries (its <pre><code> blocks) from the search
 * index, and when the query holds a run of words of one of them, that entry comes first (the numbers in
 * a text stand for any number: a reader's "messages.5" is the catalog's "messages.22"). Every query also
 * reaches Material's worker, as plain words when lunr cannot parse it as typed, and its results follow.
 *
 * scripts/docs_site.py points each page at this worker (the "search" entry of its __config), naming
 * Material's worker in the address (?material=...), which this one loads beside itself.
 * tests/docs/test_search.py runs it over the built site, for every error text the catalog quotes.
 */

const SETUP = 0
const QUERY = 2
const SHORTEST = 5 /* the fewest consecutive words of an error text that count as a match */

const post = self.postMessage.bind(self)
const listen = self.addEventListener.bind(self)
const answers = []
let material = null

/* Material's worker registers one message listener and answers each message with one postMessage: take
   the listener, and hand its answers to whoever asked. */
self.addEventListener = (type, listener, options) => {
  if (type === "message") material = listener
  else listen(type, listener, options)
}
self.postMessage = message => {
  const resolve = answers.shift()
  if (resolve) resolve(message)
  else post(message)
}
importScripts(new URL(self.location.href).searchParams.get("material"))

function ask(message) {
  return new Promise(resolve => {
    answers.push(resolve)
    material({ data: message })
  })
}

/* --- the catalog's error texts ------------------------------------------------------------------- */

let errors = [] /* {location, words} for each error text of each entry */
const documents = new Map()

function decode(html) {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
}

/* The words of a text, lower case; with `anyNumber`, each number is "#". */
function words(text, anyNumber = true) {
  const found = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []
  return anyNumber ? found.map(word => (/^\d+$/.test(word) ? "#" : word)) : found
}

function setup(docs) {
  errors = []
  documents.clear()
  for (const doc of docs) {
    documents.set(doc.location, doc)
    if (!/#quirk-\d+$/.test(doc.location)) continue
    for (const [, code] of doc.text.matchAll(/<pre><code>([\s\S]*?)<\/code><\/pre>/g))
      errors.push({
        location: doc.location,
        words: words(decode(code)),
        exact: words(decode(code), false),
      })
  }
}

/* The longest run of consecutive words the query shares with an error text. */
function longestRun(query, text) {
  let best = 0
  let previous = new Array(text.length + 1).fill(0)
  for (let i = 1; i <= query.length; i++) {
    const current = new Array(text.length + 1).fill(0)
    for (let j = 1; j <= text.length; j++)
      if (query[i - 1] === text[j - 1]) {
        current[j] = previous[j - 1] + 1
        if (current[j] > best) best = current[j]
      }
    previous = current
  }
  return best
}

/* The entries whose error texts the query quotes, best first: {location, run}. A run counts any number
   as any other; of two entries with runs as long, the one whose numbers are the query's comes first
   (quirks 37 and 63 quote one error about two messages). */
function quoted(query) {
  const asked = words(query)
  const exact = words(query, false)
  const found = new Map()
  if (asked.length < 2) return []
  for (const error of errors) {
    const run = longestRun(asked, error.words)
    if (run < Math.min(error.words.length, SHORTEST)) continue
    const score = run + longestRun(exact, error.exact) / 1000
    if (score > (found.get(error.location) || 0)) found.set(error.location, score)
  }
  return [...found].map(([location, run]) => ({ location, run })).sort((a, b) => b.run - a.run)
}

/* Material's result groups (one per page, its best section first), with the quoted entries' page first
   and the quoted entries on top of it. */
function catalogFirst(matches, groups) {
  const page = matches[0].location.split("#")[0]
  const onPage = group => group.length && group[0].location.split("#")[0] === page
  const found = groups.find(onPage) || []
  const top = Math.max(0, ...groups.flat().map(doc => doc.score))
  const entries = matches.map(({ location, run }) => {
    const doc = found.find(item => item.location === location) || { ...documents.get(location), terms: {} }
    return { ...doc, score: 2 * top + run }
  })
  const rest = found.filter(doc => !matches.some(match => match.location === doc.location))
  if (!rest.some(doc => doc.location === page))
    rest.push({ ...documents.get(page), score: 0, terms: {} })
  return [[...entries, ...rest], ...groups.filter(group => !onPage(group))]
}

/* --- the answers -------------------------------------------------------------------------------- */

/* The query as plain words: what lunr takes whatever the reader pasted. */
function plain(query) {
  return query.replace(/[^\p{L}\p{N}_\s]+/gu, " ").trim()
}

async function answer(message) {
  if (message.type === SETUP) {
    setup(message.data.docs)
    return ask(message)
  }
  if (message.type !== QUERY) return ask(message)
  const query = message.data
  const matches = quoted(query)
  let result = await ask({ type: QUERY, data: matches.length ? plain(query) : query })
  if (!result.data.items.length && plain(query) && plain(query) !== query)
    result = await ask({ type: QUERY, data: plain(query) })
  if (matches.length)
    result = { ...result, data: { ...result.data, items: catalogFirst(matches, result.data.items) } }
  return result
}

listen("message", async event => post(await answer(event.data)))
