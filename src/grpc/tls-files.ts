// Reads the control plane's gRPC TLS certificate and key (PEM files named by the environment).
import { readFileSync } from 'node:fs';
import { ConfigError } from '../platform/env.ts';
import type { GrpcServerTls } from './server.ts';

function readPem(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  ${variable}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** Both files or neither (the environment loader already refuses one without the other). */
export function loadGrpcServerTls(certFile: string | undefined, keyFile: string | undefined): GrpcServerTls | null {
  if (!certFile && !keyFile) return null;
  if (!certFile || !keyFile) throw new ConfigError('Invalid configuration:\n  GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE must be set together (both or neither)');
  return { certChain: readPem('GRPC_TLS_CERT_FILE', certFile), privateKey: readPem('GRPC_TLS_KEY_FILE', keyFile) };
}
