// The bench's results as a console table and a Markdown report, with the gateway's ratios to
// the bare proxy checked against the aim (>= 0.8x requests/s; < 0.2 ms added p50 at 1 connection).
import { cpus, release, totalmem, type as osType } from 'node:os';
import type { Measurement } from './load.ts';

export const AIM = { rpsRatio: 0.8, addedP50Ms: 0.2, p50AtConnections: 1 };

export interface Report {
  date: string;
  command: string;
  machine: string;
  settings: string;
  loadAverage: string;
  rows: Measurement[];
  usage: string;
}

export interface Comparison {
  connections: number;
  rpsRatio: number;
  addedP50: number;
  addedP99: number;
  rpsOk: boolean;
  /** Only judged at AIM.p50AtConnections. */
  p50Ok: boolean | null;
}

export function machine(): string {
  const c = cpus();
  return `${c.length} x ${c[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ${osType()} ${release()}, Node ${process.version}`;
}

export function compare(rows: Measurement[]): Comparison[] {
  const out: Comparison[] = [];
  for (const gw of rows.filter((r) => r.target === 'gateway')) {
    const bare = rows.find((r) => r.target === 'bare proxy' && r.connections === gw.connections);
    if (!bare) continue;
    const addedP50 = gw.p50 - bare.p50;
    out.push({
      connections: gw.connections,
      rpsRatio: gw.rps / bare.rps,
      addedP50,
      addedP99: gw.p99 - bare.p99,
      rpsOk: gw.rps / bare.rps >= AIM.rpsRatio,
      p50Ok: gw.connections === AIM.p50AtConnections ? addedP50 < AIM.addedP50Ms : null,
    });
  }
  return out;
}

/** Processes whose CPU time per response is shown: autocannon (here), mock upstream, proxy or worker, control plane. */
const CPU_ROLES = ['load', 'upstream', 'proxy', 'control plane'];

const ms = (v: number) => v.toFixed(3);
const signed = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(3)}`;
const verdict = (ok: boolean | null) => (ok === null ? '-' : ok ? 'met' : 'MISSED');

function tables(report: Report): { head: string[]; body: string[][] }[] {
  return [
    {
      head: ['target', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'responses', 'non-2xx', 'errors', ...CPU_ROLES.map((r) => `${r} CPU us/req`)],
      body: report.rows.map((r) => [
        r.target,
        String(r.connections),
        r.rps.toFixed(0),
        ms(r.p50),
        ms(r.p99),
        String(r.responses),
        String(r.non2xx),
        String(r.errors + r.timeouts),
        ...CPU_ROLES.map((role) => (r.cpuPerRequest[role] === undefined ? '-' : r.cpuPerRequest[role].toFixed(0))),
      ]),
    },
    {
      head: ['gateway vs bare proxy', 'req/s ratio', `>= ${AIM.rpsRatio}`, 'added p50 ms', `< ${AIM.addedP50Ms} ms @${AIM.p50AtConnections}`, 'added p99 ms'],
      body: compare(report.rows).map((c) => [`${c.connections} connection${c.connections === 1 ? '' : 's'}`, c.rpsRatio.toFixed(3), verdict(c.rpsOk), signed(c.addedP50), verdict(c.p50Ok), signed(c.addedP99)]),
    },
  ];
}

export function formatText(report: Report): string {
  const lines = [`Date: ${report.date}`, `Machine: ${report.machine}`, `Load average: ${report.loadAverage}`, `Settings: ${report.settings}`, ''];
  for (const { head, body } of tables(report)) {
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
    const fmt = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
    lines.push(fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt), '');
  }
  lines.push(`Usage logging: ${report.usage}`);
  return lines.join('\n');
}

export function formatMarkdown(report: Report): string {
  const lines = [
    '# Gateway benchmark',
    '',
    `- Date: ${report.date}`,
    `- Command: \`${report.command}\``,
    `- Machine: ${report.machine}`,
    `- Load average: ${report.loadAverage}`,
    `- Settings: ${report.settings}`,
    `- Usage logging: ${report.usage}`,
    '',
  ];
  for (const { head, body } of tables(report)) {
    lines.push(`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`, ...body.map((row) => `| ${row.join(' | ')} |`), '');
  }
  return lines.join('\n');
}
