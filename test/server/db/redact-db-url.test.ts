/**
 * The PostgreSQL URL as pksd shows it (start log line, `pksd db status`, open errors, health body): pg reads a
 * password from the user info and from the `password` and `sslpassword` query parameters, so all three are masked.
 */
import { describe, expect, it } from 'vitest';
import { redactDbUrl } from '../../../src/server/db/postgres-user-database.js';

describe('redactDbUrl', () => {
  it.each([
    ['postgres://pks:s3cret@db.example:5432/pks', 'postgres://pks:***@db.example:5432/pks'],
    ['postgres://pks@db.example/pks?password=s3cret', 'postgres://pks@db.example/pks?password=***'],
    [
      'postgres://pks:p%40ss@db.example/pks?sslmode=verify-full&sslpassword=k3y',
      'postgres://pks:***@db.example/pks?sslmode=verify-full&sslpassword=***',
    ],
    ['postgres://pks@db.example/pks?application_name=pksd', 'postgres://pks@db.example/pks?application_name=pksd'],
    ['not a url s3cret', 'postgres://(unparsable URL)'],
  ])('%s → %s', (url, shown) => {
    expect(redactDbUrl(url)).toBe(shown);
    expect(redactDbUrl(url)).not.toMatch(/s3cret|k3y|p%40ss/);
  });
});
