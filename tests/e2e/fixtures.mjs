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
