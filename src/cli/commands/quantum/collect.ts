/** A repeatable option's values, in order (commander's option argument parser). */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
