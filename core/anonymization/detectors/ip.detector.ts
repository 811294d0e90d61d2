/** IPv4 and IPv6 addresses. */
import { type Detector, whole } from '../detector.js';

function validIpv4(s: string): boolean {
  const octets = s.split('.');
  return octets.length === 4 && octets.every((o) => /^(?:0|[1-9]\d{0,2})$/.test(o) && Number(o) <= 255);
}

function validIpv6(s: string): boolean {
  let address = s;
  let embeddedV4 = 0;
  const lastColon = address.lastIndexOf(':');
  if (address.includes('.', lastColon)) {
    if (!validIpv4(address.slice(lastColon + 1))) return false;
    // The IPv4 tail stands for two groups; keep the colon so "::" before it survives.
    address = address.slice(0, lastColon + 1) + '0';
    embeddedV4 = 1;
  }
  const halves = address.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')));
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return false;
  const total = groups.length + embeddedV4;
  // "::" and "::1" are loopback/unspecified, not anyone's address; "a::b" is more likely code.
  return halves.length === 2 ? total <= 7 && groups.length >= 2 : total === 8;
}

export const IPV6: Detector = {
  type: 'IP',
  pattern:
    /(?<![\p{L}\p{N}:.])(?:[0-9a-f]{1,4}|(?=:))(?::[0-9a-f]{0,4}){2,7}(?:(?<=:)(?:\d{1,3}\.){3}\d{1,3})?(?![\p{L}\p{N}:]|\.\p{N})/giu,
  accept: (match) => (validIpv6(match[0]) ? whole(match) : null),
};

export const IPV4: Detector = {
  type: 'IP',
  pattern: /(?<![\p{L}\p{N}.:])(?:\d{1,3}\.){3}\d{1,3}(?![\p{L}\p{N}]|\.\p{N})/gu,
  // Four single-digit parts ("1.2.3.4") are section numbers far more often than addresses.
  accept: (match) => (validIpv4(match[0]) && /\d\d/.test(match[0]) ? whole(match) : null),
};
