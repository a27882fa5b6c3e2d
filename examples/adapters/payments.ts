// The app's own payment calls, as the adapter examples use them (an in-memory ledger here).
export const refunds: { charge: string; amount: number }[] = [];

export async function refundCharge(input: { charge: string; amount: number }): Promise<string> {
  refunds.push(input);
  return `refunded ${input.amount} on ${input.charge}`;
}

export async function lookupCharge(input: { charge: string }): Promise<string> {
  return `${input.charge} is paid`;
}
