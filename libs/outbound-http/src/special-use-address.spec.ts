import { isSpecialUseAddress } from './special-use-address';

describe('isSpecialUseAddress (RFC 6890 and the IANA special-purpose registries)', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '0.0.0.0', '0.1.2.3', '10.0.0.1', '172.16.0.1', '192.168.1.1', '100.64.0.1',
    '169.254.169.254', '192.0.0.8', '192.0.2.1', '198.18.0.1', '198.51.100.7', '203.0.113.9', '224.0.0.1',
    '239.255.255.250', '240.0.0.1', '255.255.255.255', '192.88.99.1',
    '::', '::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::127.0.0.1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1',
    '2001:db8::1', '64:ff9b::a00:1', '2002:a00:1::1', '2001::1', '100::1', '2001:2::1', '[::1]',
    'not-an-address', '',
  ])('%s is special-use', (address) => expect(isSpecialUseAddress(address)).toBe(true));

  it.each(['8.8.8.8', '93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8'])(
    '%s is a public unicast address',
    (address) => expect(isSpecialUseAddress(address)).toBe(false),
  );
});
