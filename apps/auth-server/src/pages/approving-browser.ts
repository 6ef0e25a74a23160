import Bowser from 'bowser';
import ipaddr from 'ipaddr.js';
import type { BrowserRequest } from './browser-request';

/**
 * What the connected-apps page shows of the browser that approved an app, so that a person can
 * tell apart several apps of one name ("Chrome on macOS, network 203.0.113.0/24"). Kept with the
 * remembered consent (consents.device, consents.network) and gone with it. Only what tells a
 * person something: the browser and system families, never the User-Agent itself (versions and
 * build strings add nothing to recognise and much to fingerprint); the address's network, never
 * the address (which household or device it was adds nothing the network does not say). Neither
 * is logged.
 */
export interface ApprovingBrowser {
  /** "Chrome on macOS"; null when the User-Agent says nothing recognisable. */
  device: string | null;
  /** "203.0.113.0/24" or "2001:db8:1::/48"; null when the address does not parse. */
  network: string | null;
}

/** A family name is a few words; anything longer is not what bowser recognised. */
const MAX_NAME_LENGTH = 40;

export function approvingBrowserOf(browser: Pick<BrowserRequest, 'ip' | 'userAgent'>): ApprovingBrowser {
  return { device: deviceOf(browser.userAgent), network: networkOf(browser.ip) };
}

/** The browser and operating system families a User-Agent names: "Firefox on Windows". */
export function deviceOf(userAgent: string | undefined): string | null {
  if (!userAgent) return null;
  const parsed = Bowser.parse(userAgent);
  const browserName = familyName(parsed.browser.name);
  const osName = familyName(parsed.os.name);
  if (browserName && osName) return `${browserName} on ${osName}`;
  return browserName ?? (osName ? `A browser on ${osName}` : null);
}

/** IPv4 /24 or IPv6 /48, in CIDR notation; an IPv4-mapped IPv6 address counts as IPv4. */
export function networkOf(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') {
    const [a, b, c] = parsed.toByteArray();
    return `${a}.${b}.${c}.0/24`;
  }
  const [p0, p1, p2] = (parsed as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([p0, p1, p2, 0, 0, 0, 0, 0]).toString()}/48`;
}

function familyName(name: string | undefined): string | null {
  const trimmed = name?.trim();
  return trimmed && trimmed.length <= MAX_NAME_LENGTH ? trimmed : null;
}
