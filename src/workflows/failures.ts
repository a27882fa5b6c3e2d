import { ApplicationFailure } from '@temporalio/workflow';
import type { Refusal } from '../core/failure-types';

/** A pure-code refusal as the one kind of error workflow code may throw. */
export function refusalFailure(r: Refusal): ApplicationFailure {
  return ApplicationFailure.create({
    type: r.type,
    message: r.message,
    details: r.details === undefined ? undefined : [r.details],
    nonRetryable: true,
  });
}
