/** E-mail addresses. */
import { type Detector, whole } from '../detector.js';

export const EMAIL: Detector = {
  type: 'EMAIL',
  pattern:
    /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]{1,64}@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.){1,8}\p{L}{2,24}(?![\p{L}\p{N}-])/gu,
  accept: whole,
};
