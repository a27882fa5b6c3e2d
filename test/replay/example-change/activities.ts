/** The activity the example change adds (never run: the example only replays). */
export interface ExampleActivities {
  notifyRequester(requestId: string, status: string): Promise<void>;
}
