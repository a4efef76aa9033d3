/** The instant a read is computed for (trending scores); tests fix it to compare with their own sort. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
