// Loads proto/worker_sync.proto once for both sides of the wire.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';

export const PROTO_PATH = fileURLToPath(new URL('../../proto/worker_sync.proto', import.meta.url));

let cachedDef: protoLoader.PackageDefinition | null = null;
let cached: grpc.GrpcObject | null = null;

/** The loaded worker_sync.proto (also what the control plane's reflection service describes). */
export function workerSyncPackageDefinition(): protoLoader.PackageDefinition {
  cachedDef ??= protoLoader.loadSync(PROTO_PATH, { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true });
  return cachedDef;
}

function load(): grpc.GrpcObject {
  cached ??= grpc.loadPackageDefinition(workerSyncPackageDefinition());
  return cached;
}

type ServiceCtor = grpc.ServiceClientConstructor;

export function workerSyncService(): ServiceCtor {
  const pkg = load().gateway as grpc.GrpcObject;
  return ((pkg.sync as grpc.GrpcObject).v1 as grpc.GrpcObject).WorkerSync as ServiceCtor;
}

/** Metadata the worker sends and the control plane checks. */
export const WORKER_TOKEN_HEADER = 'authorization';

export function workerTokenMetadata(token: string): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set(WORKER_TOKEN_HEADER, `Bearer ${token}`);
  return md;
}
