// Documents several test files define the same way: the computation most runs use, with the
// overview and diagram a save of it needs, and the spec's review-and-approve workflow.
import { readFileSync } from 'node:fs';

/** The add-vat computation at a VAT rate (a changed rate is a changed document). */
export const addVat = (rate = '0.2') => `---
description: Adds VAT to a net amount
input:
  schema: { type: object, properties: { net: { type: number } }, required: [net] }
output:
  schema: { type: object, properties: { vat: { type: number }, gross: { type: number } }, required: [vat, gross] }
compute:
  vat: input.net * ${rate}
  gross: input.net + vat
---
`;
export const ADD_VAT = addVat();
export const ADD_VAT_OVERVIEW = 'Adds 20% VAT to a net amount and answers the VAT and the gross amount.';
export const ADD_VAT_DIAGRAM = 'flowchart LR\n  A[net] --> B[vat = net x 0.2] --> C[gross = net + vat]';

/** The spec's review-and-approve workflow: the one copy the host tests include too. */
export const REVIEW_AND_APPROVE = readFileSync(new URL('../fixtures/review-and-approve.md', import.meta.url), 'utf8');
