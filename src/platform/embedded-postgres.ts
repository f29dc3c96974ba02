// The embedded default (`npm start` with nothing installed): PGlite behind a PostgreSQL socket,
// so the stock driver, the same migrations and the same code paths run against it.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  /** The socket server takes one connection: PGlite is a single session, so the pool must be 1. */
  poolMax: number;
  close(): Promise<void>;
}

export async function startEmbeddedPostgres(dataDir: string, host = '127.0.0.1'): Promise<EmbeddedPostgres> {
  mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  // Port 0: the OS picks a free one; the URL below carries it.
  const server = new PGLiteSocketServer({ db, host, port: 0, maxConnections: 1 });
  await server.start();
  const conn = server.getServerConn(); // host:port
  return {
    url: `postgresql://postgres@${conn}/postgres`,
    poolMax: 1,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
