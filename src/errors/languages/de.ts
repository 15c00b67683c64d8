/**
 * German (`de`): every code's texts and the words around them, written for German readers (docs/languages.md).
 * Codes, numbers, header names and product names stay as they are. Pure.
 */
import type { CatalogCode, CodeText, Translation, Words } from "./words";

const sec = (n: number): string => `${n} ${n === 1 ? "Sekunde" : "Sekunden"}`;

/** The opening of every retryable guidance: wait, then what the operator should look at if it persists. */
const waitThen = (wait: number, operator: string): string =>
  `**Warten und erneut versuchen.** Warten Sie mindestens ${sec(wait)}. Besteht der Fehler weiterhin, ${operator}`;

const BLOCKED =
  "**Nicht erneut versuchen.** Diese Sperre ist gewollt. Wenden Sie sich an den Website-Inhaber, wenn Sie sie für einen Irrtum halten.";
const UNPUBLISHED = "Die genaue Bedeutung dieses Codes ist nicht veröffentlicht.";
const IP_BANNED: CodeText = {
  title: "Zugriff verweigert: Ihre IP-Adresse wurde gesperrt",
  detail: "Der Website-Inhaber hat Ihre IP-Adresse gesperrt.",
  whatYouShouldDo: BLOCKED,
};
const CLIENT_TLS: CodeText = {
  title: "TLS-Fehler des Clients",
  detail: `Die TLS-Verbindung Ihres Clients erfüllt die Anforderungen der Website nicht. ${UNPUBLISHED}`,
  whatYouShouldDo:
    "**Nicht unverändert erneut versuchen.** Verwenden Sie einen aktuellen TLS-Client (Version, Cipher-Suites und Zertifikat).",
};
const ZONE_CONFIG: CodeText = {
  title: "Fehler in der Zonenkonfiguration",
  detail: `Die Konfiguration der Website auf dem Edge-Netzwerk verhindert, dass diese Anfrage bedient wird. ${UNPUBLISHED}`,
  whatYouShouldDo: "**Nicht erneut versuchen.** Der Website-Betreiber muss die Konfiguration der Zone überprüfen.",
};
const WORKER_FAILED: CodeText = {
  title: "Worker-Fehler",
  detail: `Ein Skript der Website ist fehlgeschlagen. ${UNPUBLISHED}`,
  whatYouShouldDo: "**Nicht erneut versuchen.** Der Website-Betreiber muss die Logs des Skripts prüfen.",
};
const REQUEST_BLOCKED: CodeText = {
  title: "Zugriff verweigert",
  detail: `Der Website-Inhaber hat diese Anfrage gesperrt. ${UNPUBLISHED}`,
  whatYouShouldDo: BLOCKED,
};
const SNIPPET_FAILED: CodeText = {
  title: "Snippet-Fehler",
  detail: `Ein von der Website konfiguriertes Snippet ist fehlgeschlagen. ${UNPUBLISHED}`,
  whatYouShouldDo: "**Nicht erneut versuchen.** Der Website-Betreiber muss die Snippets der Zone prüfen.",
};
const FIX_REWRITE = "**Nicht erneut versuchen.** Der Website-Betreiber muss die Rewrite-Regel korrigieren.";
const FIX_TRANSFORM = "**Nicht erneut versuchen.** Der Website-Betreiber muss die Transform-Regel korrigieren.";
const LEGAL =
  "**Nicht erneut versuchen.** Die Einschränkung ist rechtlich bedingt und lässt sich durch Wiederholen nicht aufheben.";

const CODES: Readonly<Record<CatalogCode, CodeText>> = {
  500: {
    title: "Interner Serverfehler",
    detail:
      "Beim Bearbeiten dieser Anfrage ist im Edge-Netzwerk ein interner Fehler aufgetreten. Der Ursprungsserver ist daran nicht unbedingt beteiligt.",
    whatYouShouldDo: (w) =>
      `**Warten und erneut versuchen.** Warten Sie mindestens ${sec(w)}. Besteht der Fehler weiterhin, melden Sie die Ray-ID dem Betreiber der Website.`,
  },
  502: {
    title: "Ungültiges Gateway",
    detail:
      "Der Ursprungsserver der Website hat dem Edge-Netzwerk eine ungültige oder unvollständige Antwort geliefert. Meist ist der Ursprungsserver überlastet oder falsch konfiguriert.",
    whatYouShouldDo: (w) =>
      waitThen(w, "sollte der Website-Betreiber den Zustand und die Konfiguration seines Ursprungsservers prüfen."),
  },
  504: {
    title: "Gateway-Zeitüberschreitung",
    detail:
      "Der Ursprungsserver der Website hat dem Edge-Netzwerk nicht innerhalb der erlaubten Zeit geantwortet. Meist ist der Ursprungsserver überlastet oder ein Backend-Prozess braucht zu lange.",
    whatYouShouldDo: (w) =>
      waitThen(w, "sollte der Website-Betreiber lang laufende Prozesse auf dem Ursprungsserver untersuchen."),
  },
  520: {
    title: "Der Webserver meldet einen unbekannten Fehler",
    detail:
      "Der Ursprungsserver der Website hat eine Antwort gesendet, die das Edge-Netzwerk nicht verarbeiten konnte, oder die Verbindung vor dem Ende der Antwort geschlossen.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "sollte der Website-Betreiber die Logs des Ursprungsservers auf Abstürze, leere Antworten oder fehlerhafte Header prüfen.",
      ),
  },
  521: {
    title: "Der Webserver ist nicht erreichbar",
    detail:
      "Der Ursprungsserver der Website hat die Verbindung des Edge-Netzwerks abgelehnt. Er ist offline oder blockiert das Edge-Netzwerk.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "sollte der Website-Betreiber sicherstellen, dass der Ursprungsserver läuft und Verbindungen des Edge-Netzwerks annimmt.",
      ),
  },
  522: {
    title: "Zeitüberschreitung beim Verbindungsaufbau",
    detail:
      "Das Edge-Netzwerk konnte keine TCP-Verbindung zum Ursprungsserver aufbauen. Der TCP-Handshake ist in eine Zeitüberschreitung gelaufen: Der Ursprungsserver ist möglicherweise überlastet, sperrt das Edge-Netzwerk per Firewall aus oder ist im Netz nicht erreichbar.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "sollte der Website-Betreiber seine Firewall-Regeln prüfen und sicherstellen, dass der Ursprungsserver Verbindungen aus den IP-Bereichen des Edge-Netzwerks annimmt.",
      ),
  },
  523: {
    title: "Der Ursprungsserver ist nicht erreichbar",
    detail: "Das Edge-Netzwerk hat keine Netzwerkroute zur Adresse des Ursprungsservers.",
    whatYouShouldDo: (w) =>
      waitThen(w, "sollte der Website-Betreiber die Adresse des Ursprungsservers und deren Routing prüfen."),
  },
  524: {
    title: "Zeitüberschreitung",
    detail: (timeout) =>
      `Der Ursprungsserver der Website hat innerhalb des Proxy-Read-Timeouts von ${sec(timeout)} keine vollständige Antwort geliefert. Die Verbindung stand, aber der Ursprungsserver hat zu lange für die Antwort gebraucht.`,
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "sollte der Website-Betreiber nach lang laufenden Prozessen oder einer Überlastung des Ursprungsservers suchen.",
      ),
  },
  525: {
    title: "SSL-Handshake fehlgeschlagen",
    detail: "Der TLS-Handshake zwischen dem Edge-Netzwerk und dem Ursprungsserver ist fehlgeschlagen.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Die TLS-Konfiguration des Ursprungsservers ist fehlerhaft; ein neuer Versuch hilft erst, wenn der Website-Betreiber sie behoben hat.",
  },
  526: {
    title: "Ungültiges SSL-Zertifikat",
    detail:
      "Der Ursprungsserver hat ein Zertifikat vorgelegt, das das Edge-Netzwerk nicht validieren konnte (abgelaufen, selbst signiert oder für einen anderen Namen ausgestellt).",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Ein neuer Versuch hilft erst, wenn der Website-Betreiber ein gültiges Zertifikat auf dem Ursprungsserver installiert hat.",
  },

  1000: {
    title: "DNS verweist auf eine unzulässige IP-Adresse",
    detail:
      "Das DNS oder der Ursprungsserver der Website verweist zurück auf das Edge-Netzwerk selbst, die Anfrage würde also im Kreis laufen. Das Edge-Netzwerk hat sie gestoppt.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Website-Betreiber muss den Ursprung der Zone auf einen Server richten, der nicht zum Edge-Netzwerk gehört.",
  },
  1001: {
    title: "DNS-Auflösungsfehler",
    detail:
      "Der angefragte Hostname ist im Edge-Netzwerk nicht eingerichtet, daher weiß das Edge-Netzwerk nicht, wohin es die Anfrage schicken soll.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Prüfen Sie den Hostnamen. Ist er korrekt, muss der Website-Betreiber die Zone im Edge-Netzwerk einrichten.",
  },
  1002: {
    title: "DNS verweist auf eine unzulässige IP-Adresse",
    detail: "Der DNS-Eintrag der Website verweist auf eine Adresse, die das Edge-Netzwerk nicht als Ursprung zulässt.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Website-Betreiber muss den DNS-Eintrag auf die tatsächliche Adresse des Ursprungsservers ändern.",
  },
  1003: {
    title: "Zugriff verweigert: Direkter Zugriff per IP-Adresse ist nicht erlaubt",
    detail:
      "Die Anfrage hat das Edge-Netzwerk über eine IP-Adresse statt über den Hostnamen einer Website angesprochen.",
    whatYouShouldDo:
      "**Nicht unverändert erneut versuchen.** Rufen Sie die Website über ihren Hostnamen auf, nicht über die IP-Adresse des Edge-Netzwerks.",
  },
  1004: {
    title: "Host ist nicht für Web-Traffic eingerichtet",
    detail:
      "Der Hostname ist dem Edge-Netzwerk bekannt, aber noch nicht für Web-Traffic eingerichtet, zum Beispiel weil sich sein DNS-Eintrag noch verbreitet.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "sollte der Website-Betreiber prüfen, ob der Hostname über den Proxy läuft und sein DNS-Eintrag sich verbreitet hat.",
      ),
  },
  1005: {
    title: "Zugriff verweigert: Autonomes System (ASN) gesperrt",
    detail: "Der Website-Inhaber hat das Netzwerk (ASN) gesperrt, zu dem Ihre IP-Adresse gehört.",
    whatYouShouldDo: BLOCKED,
  },
  1006: {
    title: "Zugriff verweigert: Ihre IP-Adresse wurde gesperrt",
    detail: "Der Website-Inhaber hat Ihre IP-Adresse (oder einen Adressbereich, der sie enthält) gesperrt.",
    whatYouShouldDo: BLOCKED,
  },
  1007: IP_BANNED,
  1008: IP_BANNED,
  1009: {
    title: "Zugriff verweigert",
    detail: "Der Website-Inhaber hat das Land oder die Region gesperrt, der Ihre IP-Adresse zugeordnet ist.",
    whatYouShouldDo: BLOCKED,
  },
  1010: {
    title: "Zugriff verweigert",
    detail: "Der Website-Inhaber hat den Zugriff anhand der Signatur Ihres Browsers gesperrt.",
    whatYouShouldDo: "**Nicht erneut versuchen.** Der Website-Inhaber hat Ihren User-Agent gesperrt.",
  },
  1011: {
    title: "Zugriff verweigert (Hotlinking nicht erlaubt)",
    detail: "Der Website-Inhaber erlaubt nicht, dass diese Ressource in andere Websites eingebunden wird.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Öffnen Sie die Ressource auf der Website selbst, nicht über eine andere Website.",
  },
  1012: {
    title: "Zugriff verweigert",
    detail:
      "Der Website-Inhaber hat diese Anfrage gesperrt, zum Beispiel wegen verdächtiger Aktivitäten von Ihrer Adresse.",
    whatYouShouldDo: BLOCKED,
  },
  1013: {
    title: "HTTP-Hostname und TLS-SNI-Hostname stimmen nicht überein",
    detail: "Der Hostname in der HTTP-Anfrage weicht vom Hostnamen ab, der im TLS-Handshake (SNI) gesendet wurde.",
    whatYouShouldDo:
      "**Nicht unverändert erneut versuchen.** Senden Sie im TLS-Handshake und in der Anfrage denselben Hostnamen und prüfen Sie etwaige Proxys dazwischen.",
  },
  1014: {
    title: "CNAME über Kontogrenzen hinweg nicht erlaubt",
    detail: "Der Hostname ist ein CNAME auf eine Zone eines anderen Kontos, was das Edge-Netzwerk nicht zulässt.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Website-Betreiber muss den Hostnamen auf eine Zone des eigenen Kontos verweisen lassen.",
  },
  1015: {
    title: "Ihre Anfragen werden begrenzt",
    detail: "Die Konfiguration des Website-Inhabers begrenzt die Zahl Ihrer Anfragen (Rate Limiting).",
    whatYouShouldDo: (w) =>
      `**Warten und erneut versuchen.** Diese Sperre ist vorübergehend. Warten Sie mindestens ${sec(w)} und versuchen Sie es dann erneut.\n\nEmpfohlenes Vorgehen:\n1. Warten Sie ${sec(w)} bis zur nächsten Anfrage\n2. Werden Sie erneut begrenzt, warten Sie so lange, wie der Retry-After dieser Antwort angibt: Das ist die Zeit bis zum Ende der Sperre\n3. Hält die Begrenzung nach 5 Versuchen an, hören Sie auf und überdenken Sie Ihr Anfragemuster`,
  },
  1016: {
    title: "DNS-Fehler beim Ursprung",
    detail: "Das Edge-Netzwerk konnte den Hostnamen des Ursprungsservers der Website nicht auflösen.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Website-Betreiber muss den DNS-Eintrag des Ursprungs (oder die Ursprungsadresse in der Konfiguration der Zone) korrigieren.",
  },
  1017: CLIENT_TLS,
  1018: {
    title: "Host nicht gefunden",
    detail:
      "Das Edge-Netzwerk konnte den angefragten Host nicht finden, zum Beispiel weil die Zone erst vor Kurzem hinzugefügt wurde.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Website-Betreiber muss die Konfiguration des Hostnamens im Edge-Netzwerk prüfen; eine gerade erst hinzugefügte Zone braucht unter Umständen einige Minuten, bis sie überall bekannt ist.",
  },
  1019: {
    title: "Fehler des Compute-Servers",
    detail:
      "Ein Skript der Website hat sich selbst rekursiv aufgerufen, und das Edge-Netzwerk hat die Schleife gestoppt.",
    whatYouShouldDo: "**Nicht erneut versuchen.** Der Website-Betreiber muss die Rekursion im Skript beheben.",
  },
  1020: {
    title: "Zugriff verweigert",
    detail: "Die Anfrage wurde von einer Firewall-Regel des Website-Inhabers blockiert.",
    whatYouShouldDo: BLOCKED,
  },
  1023: {
    title: "Host nicht gefunden",
    detail: "Das Edge-Netzwerk konnte den angefragten Host in der DNS-Konfiguration seines Partners nicht finden.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Website-Betreiber muss die DNS-Konfiguration des Hostnamens prüfen.",
  },
  1025: {
    title: "Bitte versuchen Sie es später noch einmal",
    detail: "Die Website hat ein Anfragelimit ihres Tarifs erreicht.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Die Website hat ein Anfragelimit ihres Tarifs ausgeschöpft; nur der Website-Betreiber kann es anheben.",
  },
  1026: {
    title: "Aus rechtlichen Gründen nicht verfügbar",
    detail: "Der Zugriff auf diese Inhalte ist aus rechtlichen Gründen eingeschränkt.",
    whatYouShouldDo: LEGAL,
  },
  1027: {
    title: "Diese Website wurde vorübergehend begrenzt",
    detail:
      "Der Website-Inhaber hat das tägliche Anfragelimit des kostenlosen Workers-Tarifs überschritten. Das Limit wird um Mitternacht UTC zurückgesetzt.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Das tägliche Anfragelimit der Website wird um Mitternacht UTC zurückgesetzt; bis dahin erhält jede Anfrage diesen Fehler.",
  },
  1028: CLIENT_TLS,
  1029: CLIENT_TLS,
  1033: {
    title: "Tunnel-Fehler",
    detail: "Der Host ist als Tunnel eingerichtet, aber das Edge-Netzwerk kann ihn derzeit nicht erreichen.",
    whatYouShouldDo: (w) => waitThen(w, "sollte der Website-Betreiber prüfen, ob der Tunnel-Connector läuft."),
  },
  1034: {
    title: "Edge-IP eingeschränkt",
    detail: "Das DNS der Website verweist auf eine Adresse, die das Edge-Netzwerk nicht als Ursprung akzeptiert.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Website-Betreiber muss den DNS-Eintrag des Hostnamens korrigieren.",
  },
  1035: {
    title: "Ungültiges Umschreiben der Anfrage (ungültiger URI-Pfad)",
    detail: "Eine URL-Rewrite-Regel der Website hat einen ungültigen URI-Pfad erzeugt.",
    whatYouShouldDo: FIX_REWRITE,
  },
  1036: {
    title: "Ungültiges Umschreiben der Anfrage (maximale Länge überschritten)",
    detail: "Eine URL-Rewrite-Regel der Website hat einen Wert erzeugt, der länger als erlaubt ist.",
    whatYouShouldDo: FIX_REWRITE,
  },
  1037: {
    title: "Ungültige Rewrite-Regel (Ausdruck konnte nicht ausgewertet werden)",
    detail: "Eine Rewrite-Regel der Website konnte ihren Ausdruck für diese Anfrage nicht auswerten.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Website-Betreiber muss den Ausdruck der Rewrite-Regel korrigieren.",
  },
  1038: {
    title: "Limit für HTTP-Header überschritten",
    detail: "Die Header der Anfrage sind größer, als die Website erlaubt.",
    whatYouShouldDo: (w) =>
      `**Mit kleineren Headern erneut versuchen.** Warten Sie mindestens ${sec(w)} und senden Sie weniger oder kleinere Header (vor allem Cookies).`,
  },
  1039: {
    title: "Rechtliche Einschränkung",
    detail: `Der Zugriff von Ihrem Standort aus ist aus rechtlichen Gründen eingeschränkt. ${UNPUBLISHED}`,
    whatYouShouldDo: LEGAL,
  },
  1040: {
    title: "Ungültiges Umschreiben der Anfrage (Änderung des Headers nicht erlaubt)",
    detail: "Eine Transform-Regel der Website hat versucht, einen Header zu ändern, der nicht geändert werden darf.",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1041: {
    title: "Ungültiges Umschreiben der Anfrage (ungültiger Header-Wert)",
    detail: "Eine Transform-Regel der Website hat einen ungültigen Header-Wert erzeugt.",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1042: {
    title: "Skript nicht gefunden",
    detail:
      "Ein Skript der Website hat ein anderes Skript desselben Kontos aufgerufen, das auf diesem Weg nicht erreichbar ist.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Website-Betreiber muss das andere Skript über ein Binding oder eine Route aufrufen.",
  },
  1043: ZONE_CONFIG,
  1044: {
    title: "TLS-Cipher nicht FIPS-konform",
    detail: "Ihr Client hat eine TLS-Cipher-Suite ausgehandelt, die die FIPS-Richtlinie der Website nicht erlaubt.",
    whatYouShouldDo:
      "**Nicht unverändert erneut versuchen.** Verwenden Sie einen TLS-Client, der FIPS-zugelassene Cipher-Suites anbietet.",
  },
  1045: {
    title: "Nicht unterstützte Funktion oder nicht unterstütztes Protokoll",
    detail: `Die Anfrage nutzt eine Funktion oder ein Protokoll, das das Edge-Netzwerk nicht unterstützt. ${UNPUBLISHED}`,
    whatYouShouldDo:
      "**Nicht unverändert erneut versuchen.** Senden Sie die Anfrage mit einem unterstützten Protokoll und unterstützten Funktionen.",
  },
  1047: ZONE_CONFIG,
  1049: ZONE_CONFIG,
  1100: WORKER_FAILED,
  1101: {
    title: "Worker hat eine Ausnahme ausgelöst",
    detail: "Das Skript, das diese Website ausliefert, hat beim Bearbeiten der Anfrage eine Ausnahme ausgelöst.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Fehler liegt im Skript der Website; melden Sie die Ray-ID dem Betreiber der Website.",
  },
  1102: {
    title: "Worker hat seine Ressourcenlimits überschritten",
    detail: "Ein vom Website-Inhaber eingerichtetes Worker-Skript hat seine Ressourcenlimits überschritten.",
    whatYouShouldDo:
      "**Nicht erneut versuchen.** Der Website-Betreiber muss den CPU- oder Speicherverbrauch des Skripts senken.",
  },
  1103: WORKER_FAILED,
  1104: WORKER_FAILED,
  1105: {
    title: "Worker vorübergehend nicht verfügbar",
    detail: `Ein Skript der Website konnte nicht ausgeführt werden. ${UNPUBLISHED}`,
    whatYouShouldDo: "**Nicht erneut versuchen.** Der Website-Betreiber muss das Deployment des Skripts prüfen.",
  },
  1106: IP_BANNED,
  1107: REQUEST_BLOCKED,
  1108: REQUEST_BLOCKED,
  1109: REQUEST_BLOCKED,
  1200: {
    title: "Verbindungslimit des Caches",
    detail: "Im Edge-Netzwerk warten zu viele Anfragen auf den Ursprungsserver, deshalb wurde diese abgewiesen.",
    whatYouShouldDo: (w) =>
      waitThen(w, "sollte der Website-Betreiber prüfen, warum der Ursprungsserver so langsam antwortet."),
  },
  1201: SNIPPET_FAILED,
  1202: SNIPPET_FAILED,
  1203: SNIPPET_FAILED,
  1204: SNIPPET_FAILED,
  1205: {
    title: "Zu viele Weiterleitungen",
    detail: "Ein Snippet der Website hat beim Bearbeiten dieser Anfrage zu oft weitergeleitet oder erneut abgerufen.",
    whatYouShouldDo: (w) => waitThen(w, "sollte der Website-Betreiber das Snippet auf Weiterleitungsschleifen prüfen."),
  },
  1206: SNIPPET_FAILED,
};

const WORDS: Words = {
  language: "de",
  errorTitle: (code, title) => `Fehler ${code}: ${title}`,
  footer: (operator) => `Dieser Fehler wurde von ${operator} im Auftrag des Website-Inhabers erzeugt.`,
  seconds: sec,

  ownerBlock: "Nur der Website-Inhaber kann diese Sperre aufheben.",
  ownerFix: "Der Website-Inhaber muss das beheben.",
  ownerNone: "Der Website-Inhaber muss nichts unternehmen.",
  notRetryableLead: "Ein neuer Versuch hilft nicht",
  notRetryableBlock: ", solange die Sperre besteht.",
  notRetryableFix: ", solange die Ursache nicht behoben ist.",
  notRetryableSame: ": Dieselbe Anfrage erhält dieselbe Antwort.",
  retryHelpsLead: "Ein neuer Versuch hilft:",
  retryHelpsWait: (wait) => ` Versuchen Sie es in ${wait} erneut.`,

  eyebrow: (code, status) => `Fehler ${code} · HTTP ${status}`,
  whatHappened: "Was ist passiert?",
  whatYouCanDo: "Was können Sie tun?",
  details: "Details",
  rayId: "Ray-ID",
  copy: "Kopieren",
  copied: "Kopiert",
  selectAndCopy: "Markieren und kopieren",
  timeUtc: "Zeit (UTC)",
  website: "Website",
  httpStatus: "HTTP-Status",
  errorName: "Fehlername",
  category: "Kategorie",
  moreHelp: "Weitere Hilfe",
  aboutError: (code) => `Über Fehler ${code}`,

  whereItBroke: "Wo der Fehler liegt",
  hopYou: "Sie",
  hopEdge: "Edge",
  hopWebsite: "Website",
  subYou: "Browser oder App",
  subEdge: "Netzwerk",
  originServer: "Ursprungsserver",
  stateWorking: "Funktioniert",
  stateError: "Fehler",
  stateBlocked: "Gesperrt",
  stateNotReached: "Nicht erreicht",

  mdWhatHappened: "Was ist passiert?",
  mdWhatYouShouldDo: "Was sollten Sie tun?",
  mdMoreHelp: "Weitere Hilfe",

  ref: {
    errorCodes: "Fehlercodes",
    eyebrow: "Referenz",
    lead: "Alle Fehler, die das Edge-Netzwerk erzeugen kann, nach Klasse und Kategorie gruppiert. Jeder Code führt zu seiner Seite: Status, Verhalten bei Wiederholung, was passiert ist und was zu tun ist.",
    filter: "Filtern",
    filterPlaceholder: "Code, Titel, Name oder Kategorie",
    filterCount: "{n} von {total} Codes",
    class5xx: "5xx-Fehler",
    class5xxAbout: "Serverfehler, die das Edge-Netzwerk erzeugt, wenn es von der Website keine Antwort bekommt.",
    class1xxx: "1xxx-Fehler",
    class1xxxAbout: "Edge-Fehler: Das Edge-Netzwerk hat die Anfrage abgelehnt oder konnte sie nicht verarbeiten.",
    categories: {
      origin: "Ursprung: der Server der Website",
      edge: "Edge: das Edge-Netzwerk selbst",
      ssl: "SSL: das Zertifikat der Website",
      access_denied: "Zugriff verweigert",
      rate_limit: "Rate Limiting",
      dns: "DNS",
      config: "Konfiguration der Website",
      tls: "TLS: die Verbindung des Clients",
      legal: "Rechtliches",
      worker: "Workers: der Code der Website",
      rewrite: "Rewrite-Regeln",
      snippet: "Snippets",
      unsupported: "Nicht unterstützt",
    },
    noRetry: "keine Wiederholung",
    retryAfterChip: (s) => `erneut nach ${s} s`,
    ownerAction: "Inhaber muss handeln",
    ownerActionLabel: "Handlungsbedarf des Inhabers",
    yes: "ja",
    no: "nein",
    allCodes: "Alle Fehlercodes",
    atAGlance: "Auf einen Blick",
    retry: "Wiederholen",
    notRetryable: (lead, reason) => `Nicht wiederholbar. ${lead}${reason} Kein Retry-After-Header.`,
    retryable: (wait, s) =>
      `Wiederholbar: ${wait} warten (Retry-After: ${s}; eine Rate-Limiting-Regel kann einen eigenen Wert setzen).`,
    required: "Erforderlich.",
    notRequired: "Nicht erforderlich.",
    whatToDo: "Was ist zu tun?",
    formats: "Formate",
    formatsLead: ["Der Fehler wird in dem Format ausgeliefert, das der ", "-Header des Clients bevorzugt:"],
    formatHtml: "Browser und Clients ohne Vorliebe.",
    formatJson: ["oder", "dieselben 17 Felder."],
    formatMarkdown: "YAML-Frontmatter, danach was passiert ist und was zu tun ist.",
  },
};

export const DE: Translation = { words: WORDS, codes: CODES };
