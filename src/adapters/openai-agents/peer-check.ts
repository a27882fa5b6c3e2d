// Runs first (the index imports it before the framework): a missing framework gets a plain message.
import { requirePeers } from '../common/peers';

requirePeers('openai-agents');
