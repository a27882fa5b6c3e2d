// What receivers import: the verifier, its error, and the signer (for tests and other senders).
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookEvent } from './verify';
export { ApprovalGateError, ConfigurationError, RefusedError, UnavailableError } from '../common/errors';
export {
  generateWebhookSecret,
  signWebhook,
  webhookSigner,
  WEBHOOK_HEADERS,
  type SignedWebhook,
  type WebhookHeaders,
} from './sign';
