/**
 * The consultation offer on the API and MCP (additive v1 fields; docs/lawyers.md): the profile
 * and the availability answer carry consultation_minutes and formats; OpenAPI documents them;
 * MCP's profile, availability and earliest-slots tools show them; llms.txt says so. A video link
 * that is not https is not a format.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { connectedAgent, sdkClient, structured } from '../mcp/support.ts';

for (const target of databaseTargets()) {
  describe(`consultation length and formats on the API and MCP (${target.name})`, () => {
    let ctx: TestContext;
    let video: string;
    let phoneOnly: string;
    let mcp: Client;
    const api = (url: string) => ctx.app.fastify.inject({ url: `/api/v1${url}` });

    before(async () => {
      ctx = await createTestContext(target);
      [video, phoneOnly] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Vídeo y Despacho', consultation_minutes: 45, formats: { video_url: 'https://meet.example.com/abc', office_address: 'Calle Mayor 1, Madrid' } }),
        lawyerRecord({ name: 'Solo Teléfono' }),
      ])) as [string, string];
      const agent = await connectedAgent(ctx, 'agente@example.com', 'directory:read');
      mcp = await sdkClient(ctx, agent.accessToken, 'modern');
    });
    after(async () => {
      await mcp?.close();
      await ctx.close();
    });

    it('profile and availability carry consultation_minutes and formats', async () => {
      const p = (await api(`/lawyers/${video}`)).json();
      assert.equal(p.consultation_minutes, 45);
      assert.deepEqual(p.formats, ['video', 'in_person']);
      assert.equal(JSON.stringify(p).includes('meet.example.com'), false, 'the meeting link is for the booked person, not the directory');
      const a = (await api(`/lawyers/${phoneOnly}/availability`)).json();
      assert.equal(a.consultation_minutes, 60, 'the hours\' slot length when none is given');
      assert.deepEqual(a.formats, ['phone']);
    });

    it('OpenAPI documents both fields on the profile and the availability answer', async () => {
      const doc = (await api('/openapi.json')).json();
      for (const path of ['/lawyers/{lawyerId}', '/lawyers/{lawyerId}/availability']) {
        const ok = JSON.stringify(doc.paths[path].get.responses['200']);
        assert.match(ok, /"consultation_minutes"/, path);
        assert.match(ok, /"in_person"/, path);
      }
    });

    it('MCP tools show them: profile, availability, earliest slots; llms.txt explains', async () => {
      const profile = structured<{ consultation_minutes: number; formats: string[] }>(await mcp.callTool({ name: 'get_lawyer_profile', arguments: { lawyer_id: video } }));
      assert.deepEqual([profile.consultation_minutes, profile.formats], [45, ['video', 'in_person']]);
      const availability = structured<{ consultation_minutes: number; formats: string[] }>(await mcp.callTool({ name: 'get_lawyer_availability', arguments: { lawyer_id: phoneOnly } }));
      assert.deepEqual([availability.consultation_minutes, availability.formats], [60, ['phone']]);
      const earliest = structured<{ results: Array<{ lawyer: { id: string }; consultation_minutes: number; formats: string[] }> }>(await mcp.callTool({ name: 'find_earliest_slots', arguments: { city: 'madrid', lawyers: 2 } }));
      assert.ok(earliest.results.length > 0);
      for (const r of earliest.results) assert.ok(r.formats.length > 0 && [30, 45, 60, 90].includes(r.consultation_minutes));
      const llms = await ctx.app.fastify.inject({ url: '/llms.txt' });
      assert.match(llms.body, /consultation_minutes/);
      assert.match(llms.body, /in_person/);
    });
  });
}
