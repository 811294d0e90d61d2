/** Where "now" comes from for billing periods and export links; tests inject their own. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
