import type { ApplicationFailure } from '@temporalio/activity';
import type { DeliverNoticeInput, DeliverNoticeResult } from '../../common/notice';
import type { NotifySettings } from '../../notify/config';

/** A retryable NotificationDeliveryFailed, its message cleared of secrets; `retryAfterS` delays the next attempt. */
export type DeliveryFailure = (
  message: string,
  details?: Record<string, unknown>,
  retryAfterS?: number,
) => ApplicationFailure;

/** What each channel's sender is built from. */
export interface SenderDeps {
  settings: NotifySettings;
  /** Per call to the channel. */
  timeoutMs: number;
  fetch?: typeof fetch;
  failed: DeliveryFailure;
}

/** Sends one notice on one channel; throws a DeliveryFailure when the channel refuses or is unreachable. */
export type NoticeSender = (
  input: DeliverNoticeInput,
  publicUrl: string,
  cancelled: AbortSignal,
) => Promise<DeliverNoticeResult>;
