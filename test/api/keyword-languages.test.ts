import assert from 'node:assert/strict';
import { type TestApp, client, createTenant, ingest, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { keywordDocuments } from '../support/keywords.js';

/** French help pages: each holds "fichiers" and "dossier", so those words are common here. */
const FRENCH = [
  ['Copier', 'Pour copier des fichiers, sélectionnez-les dans le dossier puis choisissez Copier dans le menu Édition.'],
  ['Renommer', 'Un clic droit sur les fichiers du dossier ouvre un menu où Renommer change leur nom.'],
  ['Supprimer', 'Les fichiers supprimés du dossier vont dans la corbeille, d’où on peut les restaurer.'],
  ['Partager', 'Partagez un dossier avec vos collègues : ils verront tous ses fichiers et pourront les modifier.'],
  ['Compresser', 'Compressez les fichiers volumineux du dossier en une archive pour les envoyer plus vite.'],
  ['Imprimer', 'Imprimez les fichiers du dossier choisi en une seule fois depuis la boîte de dialogue Imprimer.'],
  ['Rechercher', 'La recherche parcourt les fichiers de chaque dossier et trouve les mots demandés dans leur texte.'],
  ['Synchroniser', 'La synchronisation garde les fichiers de votre dossier identiques sur tous vos appareils.'],
] as const;

for (const database of testDatabases()) {
  describe(`keyword search over chunks of several languages [${database.name}]`, () => {
    let app: TestApp;

    before(async function () {
      this.timeout(60_000);
      app = await startTestApp(await database.get());
    });

    after(async () => {
      await app?.close();
    });

    /** A new tenant's knowledge base, and a function ingesting a page into it. */
    async function knowledgeBase(name: string) {
      const t = await createTenant(app, 'standard');
      const kb = (await client(app.url, t.key)('POST', '/v1/knowledge-bases', { name })).body.id as string;
      return { t, kb, page: (title: string, content: string) => ingest(app, t.key, { knowledge_base_id: kb, title, content }) };
    }

    it('does not rank the few chunks of another language first for holding the query\'s stop words', async function () {
      this.timeout(60_000);
      const t = await createTenant(app, 'standard');
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'aide' })).body.id as string;
      for (const [title, content] of FRENCH) await ingest(app, t.key, { knowledge_base_id: kb, title, content });
      const wanted = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Explorateur',
        content: 'Pour afficher le contenu des fichiers, ouvrez la liste du dossier et double-cliquez sur un nom.',
      });
      // One English page, holding as words what French indexes as stop words (so no French chunk holds them).
      const english = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'French articles',
        content: 'In French, the words le, la and des are articles, while de and du are prepositions that often follow them in a sentence.',
      });
      const { rows } = await app.services.db.query<{ id: string; language: string }>('SELECT document_id AS id, language FROM chunks WHERE knowledge_base_id = $1', [kb]);
      assert.equal(rows.find((r) => r.id === english.documentId)?.language, 'en');
      assert.equal(rows.find((r) => r.id === wanted.documentId)?.language, 'fr');

      const documentsFor = await keywordDocuments(app, t.key);
      const found = await documentsFor('afficher le contenu de la liste des fichiers du dossier', 3);
      assert.equal(found[0], wanted.documentId, 'the page holding the query\'s words, not the one holding its articles');
      const res = await api('POST', '/v1/query', { query: 'afficher le contenu de la liste des fichiers du dossier', top_k: 3 });
      assert.equal(res.status, 200);
      assert.equal(res.body.results[0].document_id, wanted.documentId, 'the product\'s hybrid search too');
    });

    it('finds Bulgarian words by their inflected forms, which PostgreSQL has no configuration to conflate', async function () {
      this.timeout(60_000);
      const t = await createTenant(app, 'standard');
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'помощ' })).body.id as string;
      const teachers = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Училищата',
        content: 'Учителите в новите училища преподават история и география на учениците от всички класове.',
      });
      const books = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Библиотеката',
        content: 'Книгите в градската библиотека са подредени по автори, а читателите ги търсят в каталога.',
      });
      const { rows } = await app.services.db.query<{ language: string }>('SELECT DISTINCT language FROM chunks WHERE knowledge_base_id = $1', [kb]);
      assert.deepEqual(rows.map((r) => r.language), ['bg']);
      const documentsFor = await keywordDocuments(app, t.key);
      assert.deepEqual(await documentsFor('учител'), [teachers.documentId], 'the singular finds the plural with its article');
      assert.deepEqual(await documentsFor('новото училище'), [teachers.documentId], 'adjective and noun, in other forms');
      assert.deepEqual(await documentsFor('книга'), [books.documentId]);
      assert.deepEqual(await documentsFor('ученик'), [teachers.documentId], 'the stem\'s alternation (ученик, ученици)');
      assert.deepEqual(await documentsFor('в на и'), [], 'stop words alone find nothing');
    });

    it("finds Spanish words by their gender and number forms only: a light stemmer, not PostgreSQL's Snowball one", async function () {
      this.timeout(60_000);
      const { t, kb, page } = await knowledgeBase('ayuda');
      const files = await page('Archivos', 'Los archivos nuevos se guardan en las carpetas que elija, con los valores de la tabla.');
      const lights = await page('Pantalla', 'Las luces de la pantalla se ajustan varias veces al día según la información del sensor.');
      const report = await page('Avisos', 'El programa puede informar al usuario cuando termina una tarea larga.');
      await (await knowledgeBase('x')).page('Archivo', 'El archivo nuevo, la carpeta y la tabla de valores.');
      const { rows } = await app.services.db.query<{ language: string }>('SELECT DISTINCT language FROM chunks WHERE knowledge_base_id = $1', [kb]);
      assert.deepEqual(rows.map((r) => r.language), ['es']);

      const documentsFor = await keywordDocuments(app, t.key);
      assert.deepEqual(await documentsFor('archivo nuevo'), [files.documentId], 'the singular finds the plural');
      assert.deepEqual(await documentsFor('carpeta'), [files.documentId]);
      assert.deepEqual(await documentsFor('valor'), [files.documentId], 'a plural in -es');
      assert.deepEqual(await documentsFor('luz'), [lights.documentId], 'a plural in -ces');
      assert.deepEqual(await documentsFor('vez'), [lights.documentId]);
      // Snowball made 'inform' of both: a derived noun and its verb are words a query means apart.
      assert.deepEqual(await documentsFor('información'), [lights.documentId]);
      assert.deepEqual(await documentsFor('informar'), [report.documentId]);
      assert.deepEqual(await documentsFor('de la los'), [], 'stop words alone find nothing');
    });

    it('finds "rows/columns" by "columns", and "rows" and "columns" apart by "rows/columns" (PostgreSQL reads it as one token)', async function () {
      this.timeout(60_000);
      const { t, page } = await knowledgeBase('help');
      const joined = await page('Inserting', 'To insert rows/columns into a table, choose Table - Insert and the number of them.');
      const apart = await page('Deleting', 'Select the columns you no longer need, then delete them with the context menu.');
      const neither = await page('Printing', 'A printer queue shows every job still waiting to be printed.');
      // Another tenant's same text is never among the first tenant's results.
      await (await knowledgeBase('x')).page('Inserting', 'Insert rows/columns, or delete columns.');

      const documentsFor = await keywordDocuments(app, t.key);
      assert.deepEqual((await documentsFor('columns')).sort(), [joined.documentId, apart.documentId].sort(), 'the joined word is found by one of its words');
      assert.deepEqual(await documentsFor('rows'), [joined.documentId]);
      const both = await documentsFor('rows/columns');
      assert.equal(both[0], joined.documentId, 'the page holding the joined word first');
      assert.ok(both.includes(apart.documentId) && !both.includes(neither.documentId), 'a page holding one of its words too, no other');
    });

    it('finds words typed without their accents, and pages written without them by accented words, with counts not doubled', async function () {
      this.timeout(60_000);
      const { t, kb, page } = await knowledgeBase('ayuda');
      const printing = await page('Impresión', 'La configuración de la impresora se guarda con el documento y vale para cada página que se imprime.');
      const plain = await page('Sistema', 'La informacion del sistema muestra la version del programa y la memoria libre del equipo.');
      const french = await page('Éléments', 'Sélectionnez un élément de la fenêtre, puis créez une copie avec le menu Édition.');
      await (await knowledgeBase('x')).page('Impresión', 'La configuración de la impresora y la información del sistema.');
      const { rows } = await app.services.db.query<{ id: string; language: string }>('SELECT document_id AS id, language FROM chunks WHERE knowledge_base_id = $1', [kb]);
      assert.deepEqual(
        [printing, plain, french].map((d) => rows.find((r) => r.id === d.documentId)?.language),
        ['es', 'es', 'fr'],
      );

      const documentsFor = await keywordDocuments(app, t.key);
      // Spanish's light stemmer makes 'configuracion' of both spellings (core/search/spanish.ts).
      assert.deepEqual(await documentsFor('configuracion'), [printing.documentId], 'typed without accents');
      assert.deepEqual(await documentsFor('configuración'), [printing.documentId], 'typed with them');
      // (PostgreSQL's Dutch stemmer folds accents: its form of "información" found this page before.)
      assert.deepEqual(await documentsFor('información'), [plain.documentId], 'a page written without accents, by an accented word');
      assert.deepEqual(await documentsFor('informacion'), [plain.documentId]);
      assert.deepEqual(await documentsFor('element fenetre'), [french.documentId], 'French, whose stemmer keeps accents');
      assert.deepEqual(await documentsFor('edition'), [french.documentId], 'a title word');

      // "página" and "pagina" are both 'pagin' to the Spanish stemmer, which drops accents itself: one lexeme, at one position.
      const { rows: vectors } = await app.services.db.query<{ tsv: string }>('SELECT tsv::text AS tsv FROM chunks WHERE document_id = $1', [printing.documentId]);
      assert.match(vectors[0]!.tsv, /'pagin':\d+ /);
      assert.match(vectors[0]!.tsv, /'configuracion':\d+ /);
      assert.doesNotMatch(vectors[0]!.tsv, /'configuracion':\d+,/, 'the folded spelling adds no second count');
      // A stop word's folded spelling is no word either: "más" (a Spanish stop word) brings no 'mas'.
      const stop = await page('Más', 'Elija más opciones en el diálogo.');
      const { rows: stops } = await app.services.db.query<{ tsv: string }>('SELECT tsv::text AS tsv FROM chunks WHERE document_id = $1', [stop.documentId]);
      assert.doesNotMatch(stops[0]!.tsv, /'mas'/);
      assert.match(stops[0]!.tsv, /'dialog'/);
    });

    it('finds a query word by its synonyms (a round trip through English in the catalogue dictionaries), below the word itself', async function () {
      this.timeout(60_000);
      const t = await createTenant(app, 'standard');
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'ayuda' })).body.id as string;
      const own = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Guardar',
        content: 'Para guardar el archivo en el disco, elija Guardar en el menú y escriba un nombre nuevo para él.',
      });
      const synonym = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Copiar',
        content: 'Para copiar el fichero en el disco, elija Copiar en el menú y escriba un nombre nuevo para él.',
      });
      const other = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Imprimir',
        content: 'Para imprimir la hoja de cálculo, elija Imprimir en el menú y seleccione una impresora de la lista.',
      });
      const { rows } = await app.services.db.query<{ language: string }>('SELECT DISTINCT language FROM chunks WHERE knowledge_base_id = $1', [kb]);
      assert.deepEqual(rows.map((r) => r.language), ['es']);

      const withSynonyms = await keywordDocuments(app, t.key);
      assert.deepEqual(await withSynonyms('archivo'), [own.documentId, synonym.documentId], '"fichero" is a synonym of "archivo"; the page holding "archivo" first');
      assert.deepEqual(await withSynonyms('fichero'), [synonym.documentId, own.documentId], 'and the other way round');
      assert.deepEqual(await withSynonyms('archivo'), [own.documentId, synonym.documentId], 'again, its synonyms\' lexemes remembered from the first query');
      assert.deepEqual(await withSynonyms('archivo disco'), [own.documentId, synonym.documentId], 'a remembered word beside a new one');
      const without = await keywordDocuments(app, t.key, { synonyms: null });
      assert.deepEqual(await without('archivo'), [own.documentId], 'without synonyms only the page holding the word');
      assert.ok(!(await withSynonyms('archivo')).includes(other.documentId));
    });
  });
}
