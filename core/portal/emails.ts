import type { MailMessage } from '../ports/mailer.js';
import { escapeHtml } from '../shared/html.js';
import { type Language, SUPPORTED_LANGUAGES } from '../translation/translation.schema.js';

/** The e-mails Lore sends, in each of the eight languages: a subject and paragraphs; {link} marks the link. */
interface Template {
  subject: string;
  paragraphs: string[];
}

/** `invite_taken`: the invitation of an address that already has an account (it cannot be accepted with it). */
type Kind = 'invite' | 'invite_taken' | 'reset' | 'leaked_key';

const TEMPLATES: Record<Language, Record<Kind, Template>> = {
  en: {
    invite: {
      subject: 'Set your Lore password',
      paragraphs: ['You have been given access to {tenant} on Lore.', 'Choose your password here: {link}', 'This link works once and expires in {hours} hours.'],
    },
    invite_taken: {
      subject: 'Your invitation to {tenant} on Lore',
      paragraphs: [
        '{tenant} has invited this address to Lore.',
        'This address already belongs to a Lore account, and an address can belong to one account only, so it cannot join {tenant}. To join, ask an admin of {tenant} to invite another address of yours.',
        'Your account stays as it is; sign in to it here: {link}',
      ],
    },
    reset: {
      subject: 'Reset your Lore password',
      paragraphs: [
        'Someone asked to reset the password of your Lore account.',
        'Choose a new password here: {link}',
        'This link works once and expires in 1 hour. If you did not ask for it, ignore this e-mail; your password stays as it is.',
      ],
    },
    leaked_key: {
      subject: 'A Lore API key of yours was published and has been revoked',
      paragraphs: [
        'The API key "{key}" (ending in {hint}) of {tenant} was found in public: {where}.',
        'Lore revoked it at once; requests with it are now refused. Create a new key in the portal ({link}) and remove the old one from where it was published.',
      ],
    },
  },
  nl: {
    invite: {
      subject: 'Stel uw Lore-wachtwoord in',
      paragraphs: ['U hebt toegang gekregen tot {tenant} op Lore.', 'Kies hier uw wachtwoord: {link}', 'Deze link werkt één keer en verloopt over {hours} uur.'],
    },
    invite_taken: {
      subject: 'Uw uitnodiging voor {tenant} op Lore',
      paragraphs: [
        '{tenant} heeft dit adres uitgenodigd op Lore.',
        'Dit adres hoort al bij een Lore-account, en een adres kan maar bij één account horen; daarom kan het niet bij {tenant} komen. Vraag daarvoor een beheerder van {tenant} om een ander adres van u uit te nodigen.',
        'Uw account blijft zoals het is; u meldt zich hier aan: {link}',
      ],
    },
    reset: {
      subject: 'Uw Lore-wachtwoord opnieuw instellen',
      paragraphs: [
        'Iemand heeft gevraagd het wachtwoord van uw Lore-account opnieuw in te stellen.',
        'Kies hier een nieuw wachtwoord: {link}',
        'Deze link werkt één keer en verloopt over 1 uur. Hebt u hier niet om gevraagd, negeer dan deze e-mail; uw wachtwoord blijft ongewijzigd.',
      ],
    },
    leaked_key: {
      subject: 'Een Lore-API-sleutel van u is openbaar gemaakt en ingetrokken',
      paragraphs: [
        'De API-sleutel "{key}" (eindigend op {hint}) van {tenant} is openbaar gevonden: {where}.',
        'Lore heeft hem meteen ingetrokken; verzoeken ermee worden nu geweigerd. Maak een nieuwe sleutel aan in het portaal ({link}) en verwijder de oude waar hij gepubliceerd is.',
      ],
    },
  },
  fr: {
    invite: {
      subject: 'Définissez votre mot de passe Lore',
      paragraphs: ['Vous avez reçu un accès à {tenant} sur Lore.', 'Choisissez votre mot de passe ici : {link}', 'Ce lien ne fonctionne qu’une fois et expire dans {hours} heures.'],
    },
    invite_taken: {
      subject: 'Votre invitation à {tenant} sur Lore',
      paragraphs: [
        '{tenant} a invité cette adresse sur Lore.',
        'Cette adresse appartient déjà à un compte Lore, et une adresse ne peut appartenir qu’à un seul compte ; elle ne peut donc pas rejoindre {tenant}. Pour le rejoindre, demandez à un administrateur de {tenant} d’inviter une autre de vos adresses.',
        'Votre compte reste inchangé ; connectez-vous ici : {link}',
      ],
    },
    reset: {
      subject: 'Réinitialisez votre mot de passe Lore',
      paragraphs: [
        'Quelqu’un a demandé la réinitialisation du mot de passe de votre compte Lore.',
        'Choisissez un nouveau mot de passe ici : {link}',
        'Ce lien ne fonctionne qu’une fois et expire dans 1 heure. Si vous n’avez rien demandé, ignorez cet e-mail ; votre mot de passe reste inchangé.',
      ],
    },
    leaked_key: {
      subject: 'Une de vos clés d’API Lore a été publiée et révoquée',
      paragraphs: [
        'La clé d’API « {key} » (se terminant par {hint}) de {tenant} a été trouvée en public : {where}.',
        'Lore l’a révoquée immédiatement ; les requêtes qui l’utilisent sont refusées. Créez une nouvelle clé dans le portail ({link}) et retirez l’ancienne de l’endroit où elle a été publiée.',
      ],
    },
  },
  de: {
    invite: {
      subject: 'Legen Sie Ihr Lore-Passwort fest',
      paragraphs: ['Sie haben Zugang zu {tenant} bei Lore erhalten.', 'Wählen Sie hier Ihr Passwort: {link}', 'Dieser Link funktioniert einmal und läuft in {hours} Stunden ab.'],
    },
    invite_taken: {
      subject: 'Ihre Einladung zu {tenant} bei Lore',
      paragraphs: [
        '{tenant} hat diese Adresse zu Lore eingeladen.',
        'Diese Adresse gehört bereits zu einem Lore-Konto, und eine Adresse kann nur zu einem Konto gehören; sie kann {tenant} daher nicht beitreten. Bitten Sie dazu einen Administrator von {tenant}, eine andere Adresse von Ihnen einzuladen.',
        'Ihr Konto bleibt unverändert; hier melden Sie sich an: {link}',
      ],
    },
    reset: {
      subject: 'Setzen Sie Ihr Lore-Passwort zurück',
      paragraphs: [
        'Jemand hat angefordert, das Passwort Ihres Lore-Kontos zurückzusetzen.',
        'Wählen Sie hier ein neues Passwort: {link}',
        'Dieser Link funktioniert einmal und läuft in 1 Stunde ab. Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail; Ihr Passwort bleibt unverändert.',
      ],
    },
    leaked_key: {
      subject: 'Ein Lore-API-Schlüssel von Ihnen wurde veröffentlicht und widerrufen',
      paragraphs: [
        'Der API-Schlüssel „{key}“ (endet auf {hint}) von {tenant} wurde öffentlich gefunden: {where}.',
        'Lore hat ihn sofort widerrufen; Anfragen damit werden jetzt abgelehnt. Erstellen Sie im Portal ({link}) einen neuen Schlüssel und entfernen Sie den alten dort, wo er veröffentlicht wurde.',
      ],
    },
  },
  es: {
    invite: {
      subject: 'Establezca su contraseña de Lore',
      paragraphs: ['Se le ha dado acceso a {tenant} en Lore.', 'Elija su contraseña aquí: {link}', 'Este enlace funciona una sola vez y caduca en {hours} horas.'],
    },
    invite_taken: {
      subject: 'Su invitación a {tenant} en Lore',
      paragraphs: [
        '{tenant} ha invitado a esta dirección a Lore.',
        'Esta dirección ya pertenece a una cuenta de Lore, y una dirección solo puede pertenecer a una cuenta, así que no puede unirse a {tenant}. Para unirse, pida a un administrador de {tenant} que invite otra dirección suya.',
        'Su cuenta no cambia; inicie sesión aquí: {link}',
      ],
    },
    reset: {
      subject: 'Restablezca su contraseña de Lore',
      paragraphs: [
        'Alguien ha pedido restablecer la contraseña de su cuenta de Lore.',
        'Elija una contraseña nueva aquí: {link}',
        'Este enlace funciona una sola vez y caduca en 1 hora. Si no lo ha pedido, ignore este correo; su contraseña no cambia.',
      ],
    },
    leaked_key: {
      subject: 'Una clave de API de Lore suya se publicó y ha sido revocada',
      paragraphs: [
        'La clave de API «{key}» (termina en {hint}) de {tenant} se encontró en público: {where}.',
        'Lore la revocó de inmediato; las solicitudes con ella se rechazan. Cree una clave nueva en el portal ({link}) y quite la antigua de donde se publicó.',
      ],
    },
  },
  it: {
    invite: {
      subject: 'Imposta la tua password di Lore',
      paragraphs: ['Ti è stato dato accesso a {tenant} su Lore.', 'Scegli la tua password qui: {link}', 'Questo link funziona una sola volta e scade tra {hours} ore.'],
    },
    invite_taken: {
      subject: 'Il tuo invito a {tenant} su Lore',
      paragraphs: [
        '{tenant} ha invitato questo indirizzo su Lore.',
        'Questo indirizzo appartiene già a un account Lore e un indirizzo può appartenere a un solo account, quindi non può unirsi a {tenant}. Per unirti, chiedi a un amministratore di {tenant} di invitare un altro tuo indirizzo.',
        'Il tuo account resta invariato; accedi qui: {link}',
      ],
    },
    reset: {
      subject: 'Reimposta la tua password di Lore',
      paragraphs: [
        'Qualcuno ha chiesto di reimpostare la password del tuo account Lore.',
        'Scegli una nuova password qui: {link}',
        'Questo link funziona una sola volta e scade tra 1 ora. Se non l’hai chiesto tu, ignora questa e-mail; la password resta invariata.',
      ],
    },
    leaked_key: {
      subject: 'Una tua chiave API di Lore è stata pubblicata ed è stata revocata',
      paragraphs: [
        'La chiave API «{key}» (che termina con {hint}) di {tenant} è stata trovata in pubblico: {where}.',
        'Lore l’ha revocata subito; le richieste con essa vengono rifiutate. Crea una nuova chiave nel portale ({link}) e rimuovi quella vecchia da dove è stata pubblicata.',
      ],
    },
  },
  bg: {
    invite: {
      subject: 'Задайте паролата си за Lore',
      paragraphs: ['Получихте достъп до {tenant} в Lore.', 'Изберете паролата си тук: {link}', 'Връзката работи веднъж и изтича след {hours} часа.'],
    },
    invite_taken: {
      subject: 'Вашата покана за {tenant} в Lore',
      paragraphs: [
        '{tenant} покани този адрес в Lore.',
        'Този адрес вече принадлежи на акаунт в Lore, а един адрес може да принадлежи само на един акаунт, затова не може да се присъедини към {tenant}. За да се присъедините, помолете администратор на {tenant} да покани друг ваш адрес.',
        'Акаунтът ви остава същият; влезте в него тук: {link}',
      ],
    },
    reset: {
      subject: 'Нулирайте паролата си за Lore',
      paragraphs: [
        'Някой поиска нулиране на паролата на вашия акаунт в Lore.',
        'Изберете нова парола тук: {link}',
        'Връзката работи веднъж и изтича след 1 час. Ако не сте го поискали, пренебрегнете този имейл; паролата ви остава същата.',
      ],
    },
    leaked_key: {
      subject: 'Ваш API ключ за Lore беше публикуван и е отменен',
      paragraphs: [
        'API ключът „{key}“ (завършващ на {hint}) на {tenant} беше открит публично: {where}.',
        'Lore го отмени веднага; заявките с него вече се отказват. Създайте нов ключ в портала ({link}) и премахнете стария от мястото, където е публикуван.',
      ],
    },
  },
  ro: {
    invite: {
      subject: 'Setați-vă parola Lore',
      paragraphs: ['Ați primit acces la {tenant} în Lore.', 'Alegeți-vă parola aici: {link}', 'Acest link funcționează o singură dată și expiră în {hours} ore.'],
    },
    invite_taken: {
      subject: 'Invitația dumneavoastră la {tenant} în Lore',
      paragraphs: [
        '{tenant} a invitat această adresă în Lore.',
        'Această adresă aparține deja unui cont Lore, iar o adresă poate aparține unui singur cont, așa că nu se poate alătura {tenant}. Pentru a vă alătura, cereți unui administrator al {tenant} să invite o altă adresă a dumneavoastră.',
        'Contul dumneavoastră rămâne neschimbat; vă conectați aici: {link}',
      ],
    },
    reset: {
      subject: 'Resetați-vă parola Lore',
      paragraphs: [
        'Cineva a cerut resetarea parolei contului dumneavoastră Lore.',
        'Alegeți o parolă nouă aici: {link}',
        'Acest link funcționează o singură dată și expiră într-o oră. Dacă nu ați cerut acest lucru, ignorați acest e-mail; parola rămâne neschimbată.',
      ],
    },
    leaked_key: {
      subject: 'O cheie API Lore a dumneavoastră a fost publicată și a fost revocată',
      paragraphs: [
        'Cheia API „{key}” (care se termină în {hint}) a {tenant} a fost găsită public: {where}.',
        'Lore a revocat-o imediat; cererile cu ea sunt acum refuzate. Creați o cheie nouă în portal ({link}) și eliminați-o pe cea veche de unde a fost publicată.',
      ],
    },
  },
};

function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** The language of a person's e-mails: theirs when it is one of the eight, else English. */
export function mailLanguage(language: string | undefined): Language {
  return SUPPORTED_LANGUAGES.includes(language as Language) ? (language as Language) : 'en';
}

/**
 * Builds one of Lore's e-mails. Values are inserted as text (escaped in the HTML part); `link` becomes
 * a link in the HTML part.
 */
export function composeMail(kind: Kind, language: string, to: string, values: Record<string, string> & { link: string }): MailMessage {
  const template = TEMPLATES[mailLanguage(language)][kind];
  const text = template.paragraphs.map((p) => fill(p, values)).join('\n\n');
  const htmlValues = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, escapeHtml(v)]));
  htmlValues.link = `<a href="${escapeHtml(values.link)}">${escapeHtml(values.link)}</a>`;
  const html = `<!doctype html><html lang="${mailLanguage(language)}"><body style="font-family:sans-serif;line-height:1.5">${template.paragraphs
    .map((p) => `<p>${fill(escapeHtml(p), htmlValues)}</p>`)
    .join('')}</body></html>`;
  return { to, subject: fill(template.subject, values), text, html };
}

/** The language a browser prefers among the eight (Accept-Language), if any. */
export function preferredLanguage(acceptLanguage: string | undefined): Language | undefined {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = Number(params.find((p) => p.trim().startsWith('q='))?.split('=')[1] ?? 1);
      return { language: tag.trim().slice(0, 2).toLowerCase(), q: Number.isFinite(q) ? q : 0 };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q);
  return ranked.map((entry) => entry.language).find((l): l is Language => SUPPORTED_LANGUAGES.includes(l as Language));
}
