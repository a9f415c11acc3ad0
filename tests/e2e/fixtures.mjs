// Documents several test files define the same way: the computation most runs use, with the
// overview and diagram a save of it needs, the spec's review-and-approve workflow, and seed 004's
// brief review.
import { readFileSync } from 'node:fs';

const fixture = (name) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

/** The add-vat computation at a VAT rate (a changed rate is a changed document); the host tests
 * run the same file. */
export const addVat = (rate = '0.2') => fixture('add-vat.md').replace('input.net * 0.2', `input.net * ${rate}`);
export const ADD_VAT = addVat();
export const ADD_VAT_OVERVIEW = 'Adds 20% VAT to a net amount and answers the VAT and the gross amount.';
export const ADD_VAT_DIAGRAM = 'flowchart LR\n  A[net] --> B[vat = net x 0.2] --> C[gross = net + vat]';

/** The spec's review-and-approve workflow: the one copy the host tests include too. */
export const REVIEW_AND_APPROVE = fixture('review-and-approve.md');

/** Seed 004's brief review, as its guide writes it: a reasoning function that reads a brief through
 * the files server's read_text_file; the host tests run the same file. */
export const BRIEF_REVIEW = fixture('brief-review.md');

/** The interaction step of review-and-approve, which the host tests run too. */
export const APPROVE_CAMPAIGN_BRIEF = fixture('approve-campaign-brief.md');

/** A reasoning function that asks server-everything's get-tiny-image for the MCP logo, a real PNG,
 * which the runtime keeps as an asset; with the stand-in model `model` of the OpenAI API. */
export const tinyImageFunction = (model) => `---
description: Fetches the MCP logo through a tool and says what it shows
model: openai/${model}
input:
  schema: { type: object, properties: { subject: { type: string } }, required: [subject] }
tools: [everything/get-tiny-image]
---
{% system %}Fetch the image with the get-tiny-image tool, then say in one sentence what it shows.{% endsystem %}

Subject: {{ input.subject }}
`;
export const TINY_IMAGE_OVERVIEW = 'Fetches the MCP logo through a tool, keeps it as an asset, and says what it shows.';
export const TINY_IMAGE_DIAGRAM = 'flowchart LR\n  A[subject] --> B[get-tiny-image] --> C[one sentence]';
export const TINY_IMAGE_SAYS = 'It shows the MCP logo.';

/** Scripts the OpenAI stand-in's `model` to call get-tiny-image once, then answer TINY_IMAGE_SAYS. */
export async function scriptTinyImage(model) {
  const standin = process.env.STANDIN_OPENAI_URL;
  if (!standin) throw new Error('STANDIN_OPENAI_URL is not set: run the suite with `node tests/e2e/run.mjs`');
  const turns = [{ tool_calls: [{ name: 'get-tiny-image', input: {} }] }, { text: TINY_IMAGE_SAYS }];
  const res = await fetch(`${standin}/__script`, { method: 'POST', body: JSON.stringify({ model, turns }) });
  if (res.status !== 200) throw new Error(`the stand-in refused the script: ${await res.text()}`);
}
