import { describe, it, expect } from 'vitest';
import { AppError } from '../../../src/domain/errors.ts';
import { checkCustomHost, trustedHostSet } from '../../../src/domain/net/custom-host.ts';
import { isBlockedAddress, isBlockedHostname } from '../../../src/domain/net/ip-address.ts';

describe('blocked addresses', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1',
    '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1', '64:ff9b::a9fe:a9fe', 'ff02::1',
  ])('%s is blocked', (ip) => expect(isBlockedAddress(ip)).toBe(true));

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is allowed', (ip) =>
    expect(isBlockedAddress(ip)).toBe(false),
  );

  it('knows the local and metadata host names', () => {
    for (const h of ['localhost', 'LOCALHOST.', 'api.localhost', 'metadata.google.internal', 'metadata']) expect(isBlockedHostname(h)).toBe(true);
    expect(isBlockedHostname('api.openai.com')).toBe(false);
  });
});

describe('x-gateway-custom-host', () => {
  const none = trustedHostSet([]);
  const err = (raw: string, trusted = none) => {
    const r = checkCustomHost(raw, trusted);
    return r instanceof AppError ? r.message : null;
  };

  it('accepts public http(s) URLs', () => {
    expect(err('https://api.example.com/v1')).toBeNull();
    expect(err('http://8.8.8.8:8080/v1')).toBeNull();
  });

  it.each([
    ['ftp://example.com', 'http or https'],
    ['file:///etc/passwd', 'http or https'],
    ['https://example.com/v1#frag', 'fragment'],
    ['https://user:pw@example.com', 'credentials'],
    ['not a url', 'not a valid URL'],
    ['http://127.0.0.1:8080', 'private or reserved'],
    ['http://2130706433/', 'private or reserved'], // decimal form of 127.0.0.1
    ['http://0x7f.1/', 'private or reserved'],
    ['http://[::1]:80/', 'private or reserved'],
    ['http://[::ffff:169.254.169.254]/', 'private or reserved'],
    ['http://169.254.169.254/latest/meta-data', 'private or reserved'],
    ['http://localhost:3000', 'private or reserved'],
    ['http://metadata.google.internal/computeMetadata/v1', 'private or reserved'],
  ])('refuses %s', (raw, why) => expect(err(raw)).toContain(why));

  it('allows a private host only when listed in TRUSTED_CUSTOM_HOSTS', () => {
    expect(err('http://127.0.0.1:4010/v1', trustedHostSet(['127.0.0.1:4010']))).toBeNull();
    expect(err('http://127.0.0.1:4011/v1', trustedHostSet(['127.0.0.1:4010']))).toContain('private');
    expect(err('http://127.0.0.1:9/v1', trustedHostSet(['127.0.0.1']))).toBeNull();
    expect(err('http://localhost:80/', trustedHostSet(['localhost:80']))).toBeNull();
  });

  it('names the header in the error', () => {
    const r = checkCustomHost('http://10.0.0.1', none);
    expect(r).toBeInstanceOf(AppError);
    expect((r as AppError).param).toBe('x-gateway-custom-host');
    expect((r as AppError).status).toBe(400);
  });
});
