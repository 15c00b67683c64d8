/**
 * French (`fr`): every code's texts and the words around them, written for French readers (docs/languages.md).
 * Codes, numbers, header names and product names stay as they are. Pure.
 */
import type { CatalogCode, CodeText, Translation, Words } from "./words";

// French typography: a narrow no-break space before `:` is usual in print; a plain no-break space (U+00A0) is what
// every font has, so it is the one used before the colon and between a number and its unit.
const NBSP = "\u00a0";
const sec = (n: number): string => `${n}${NBSP}${n === 1 ? "seconde" : "secondes"}`;

/** The opening of every retryable guidance: wait, then what the operator should look at if it persists. */
const waitThen = (wait: number, operator: string): string =>
  `**Patientez puis réessayez.** Attendez au moins ${sec(wait)}. Si l'erreur persiste, ${operator}`;

const BLOCKED =
  "**Ne réessayez pas.** Ce blocage est volontaire. Contactez le propriétaire du site si vous pensez qu'il s'agit d'une erreur.";
const UNPUBLISHED = "La signification exacte de ce code n'est pas publiée.";
const IP_BANNED: CodeText = {
  title: `Accès refusé${NBSP}: votre adresse IP a été bloquée`,
  detail: "Le propriétaire du site a bloqué votre adresse IP.",
  whatYouShouldDo: BLOCKED,
};
const CLIENT_TLS: CodeText = {
  title: "Erreur TLS du client",
  detail: `La connexion TLS de votre client ne répond pas aux exigences du site. ${UNPUBLISHED}`,
  whatYouShouldDo:
    "**Ne réessayez pas tel quel.** Utilisez un client TLS à jour (version, suites de chiffrement et certificat).",
};
const ZONE_CONFIG: CodeText = {
  title: "Erreur de configuration de la zone",
  detail: `La configuration du site sur le réseau edge empêche de traiter cette requête. ${UNPUBLISHED}`,
  whatYouShouldDo: "**Ne réessayez pas.** L'exploitant du site doit vérifier la configuration de la zone.",
};
const WORKER_FAILED: CodeText = {
  title: "Erreur du Worker",
  detail: `Un script du site a échoué. ${UNPUBLISHED}`,
  whatYouShouldDo: "**Ne réessayez pas.** L'exploitant du site doit consulter les journaux du script.",
};
const REQUEST_BLOCKED: CodeText = {
  title: "Accès refusé",
  detail: `Le propriétaire du site a bloqué cette requête. ${UNPUBLISHED}`,
  whatYouShouldDo: BLOCKED,
};
const SNIPPET_FAILED: CodeText = {
  title: "Erreur de snippet",
  detail: `Un snippet configuré par le site a échoué. ${UNPUBLISHED}`,
  whatYouShouldDo: "**Ne réessayez pas.** L'exploitant du site doit vérifier les snippets de la zone.",
};
const FIX_REWRITE = "**Ne réessayez pas.** L'exploitant du site doit corriger la règle de réécriture.";
const FIX_TRANSFORM = "**Ne réessayez pas.** L'exploitant du site doit corriger la règle de transformation.";
const LEGAL = "**Ne réessayez pas.** La restriction est d'ordre juridique : réessayer ne la lèvera pas.".replace(
  " :",
  `${NBSP}:`,
);

const CODES: Readonly<Record<CatalogCode, CodeText>> = {
  500: {
    title: "Erreur interne du serveur",
    detail:
      "Le réseau edge a rencontré une erreur interne en traitant cette requête. Le serveur d'origine n'est pas forcément en cause.",
    whatYouShouldDo: (w) =>
      `**Patientez puis réessayez.** Attendez au moins ${sec(w)}. Si l'erreur persiste, communiquez le Ray ID à l'exploitant du site.`,
  },
  502: {
    title: "Passerelle incorrecte",
    detail:
      "Le serveur d'origine du site a renvoyé au réseau edge une réponse invalide ou incomplète. Le plus souvent, l'origine est surchargée ou mal configurée.",
    whatYouShouldDo: (w) =>
      waitThen(w, "l'exploitant du site devrait vérifier l'état et la configuration de son serveur d'origine."),
  },
  504: {
    title: "Délai de la passerelle dépassé",
    detail:
      "Le serveur d'origine du site n'a pas répondu au réseau edge dans le délai imparti. Le plus souvent, l'origine est surchargée ou un traitement du backend prend trop de temps.",
    whatYouShouldDo: (w) =>
      waitThen(w, "l'exploitant du site devrait rechercher les traitements trop longs sur le serveur d'origine."),
  },
  520: {
    title: "Le serveur web renvoie une erreur inconnue",
    detail:
      "Le serveur d'origine du site a envoyé une réponse que le réseau edge n'a pas pu interpréter, ou a fermé la connexion avant la fin de la réponse.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "l'exploitant du site devrait chercher dans les journaux de l'origine des plantages, des réponses vides ou des en-têtes mal formés.",
      ),
  },
  521: {
    title: "Le serveur web est hors service",
    detail:
      "Le serveur d'origine du site a refusé la connexion du réseau edge. L'origine est hors ligne ou bloque le réseau edge.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "l'exploitant du site devrait s'assurer que le serveur d'origine fonctionne et accepte les connexions du réseau edge.",
      ),
  },
  522: {
    title: "Délai de connexion dépassé",
    detail:
      "Le réseau edge n'a pas pu établir de connexion TCP avec le serveur d'origine. La négociation TCP a expiré : l'origine est peut-être surchargée, bloque le réseau edge par un pare-feu ou n'est pas joignable sur le réseau.".replace(
        " :",
        `${NBSP}:`,
      ),
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "l'exploitant du site devrait vérifier ses règles de pare-feu et s'assurer que l'origine accepte les connexions depuis les plages d'adresses IP du réseau edge.",
      ),
  },
  523: {
    title: "L'origine est injoignable",
    detail: "Le réseau edge ne dispose d'aucune route réseau vers l'adresse du serveur d'origine.",
    whatYouShouldDo: (w) =>
      waitThen(w, "l'exploitant du site devrait vérifier l'adresse de l'origine et son routage réseau."),
  },
  524: {
    title: "Un délai a expiré",
    detail: (timeout) =>
      `Le serveur d'origine du site n'a pas renvoyé de réponse complète dans le délai de lecture du proxy (Proxy Read Timeout) de ${sec(timeout)}. La connexion était établie, mais l'origine a mis trop de temps à répondre.`,
    whatYouShouldDo: (w) =>
      waitThen(w, "l'exploitant du site devrait rechercher des traitements trop longs ou une surcharge de l'origine."),
  },
  525: {
    title: "Échec de la négociation SSL",
    detail: "La négociation TLS entre le réseau edge et le serveur d'origine a échoué.",
    whatYouShouldDo:
      "**Ne réessayez pas.** La configuration TLS de l'origine est défaillante ; réessayer ne servira à rien tant que l'exploitant du site ne l'aura pas corrigée.",
  },
  526: {
    title: "Certificat SSL invalide",
    detail:
      "Le serveur d'origine a présenté un certificat que le réseau edge n'a pas pu valider (expiré, autosigné ou émis pour un autre nom).",
    whatYouShouldDo:
      "**Ne réessayez pas.** Cela ne servira à rien tant que l'exploitant du site n'aura pas installé un certificat valide sur l'origine.",
  },

  1000: {
    title: "Le DNS pointe vers une adresse IP interdite",
    detail:
      "Le DNS ou l'origine du site pointe vers le réseau edge lui-même : la requête tournerait en boucle. Le réseau edge l'a arrêtée.".replace(
        " :",
        `${NBSP}:`,
      ),
    whatYouShouldDo:
      "**Ne réessayez pas.** L'exploitant du site doit faire pointer l'origine de la zone vers un serveur qui n'est pas le réseau edge lui-même.",
  },
  1001: {
    title: "Erreur de résolution DNS",
    detail: "Le nom d'hôte demandé n'est pas configuré sur le réseau edge, qui ne sait donc pas où envoyer la requête.",
    whatYouShouldDo:
      "**Ne réessayez pas.** Vérifiez le nom d'hôte. S'il est correct, l'exploitant du site doit configurer la zone sur le réseau edge.",
  },
  1002: {
    title: "Le DNS pointe vers une adresse IP interdite",
    detail: "L'enregistrement DNS du site pointe vers une adresse que le réseau edge n'accepte pas comme origine.",
    whatYouShouldDo:
      "**Ne réessayez pas.** L'exploitant du site doit faire pointer l'enregistrement DNS vers l'adresse réelle du serveur d'origine.",
  },
  1003: {
    title: `Accès refusé${NBSP}: accès direct par adresse IP interdit`,
    detail: "La requête s'adressait au réseau edge par son adresse IP au lieu du nom d'hôte d'un site.",
    whatYouShouldDo:
      "**Ne réessayez pas tel quel.** Accédez au site par son nom d'hôte, et non par l'adresse IP du réseau edge.",
  },
  1004: {
    title: "Hôte non configuré pour servir du trafic web",
    detail:
      "Le réseau edge connaît ce nom d'hôte, mais il n'est pas encore configuré pour servir du trafic web, par exemple parce que son DNS est en cours de propagation.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "l'exploitant du site devrait vérifier que le nom d'hôte passe bien par le proxy et que son DNS s'est propagé.",
      ),
  },
  1005: {
    title: `Accès refusé${NBSP}: système autonome (ASN) bloqué`,
    detail: "Le propriétaire du site a bloqué le réseau (ASN) auquel appartient votre adresse IP.",
    whatYouShouldDo: BLOCKED,
  },
  1006: {
    title: `Accès refusé${NBSP}: votre adresse IP a été bloquée`,
    detail: "Le propriétaire du site a bloqué votre adresse IP (ou une plage qui la contient).",
    whatYouShouldDo: BLOCKED,
  },
  1007: IP_BANNED,
  1008: IP_BANNED,
  1009: {
    title: "Accès refusé",
    detail: "Le propriétaire du site a bloqué le pays ou la région associés à votre adresse IP.",
    whatYouShouldDo: BLOCKED,
  },
  1010: {
    title: "Accès refusé",
    detail: "Le propriétaire du site a bloqué l'accès en fonction de la signature de votre navigateur.",
    whatYouShouldDo: "**Ne réessayez pas.** Le propriétaire du site a bloqué votre user-agent.",
  },
  1011: {
    title: "Accès refusé (hotlinking interdit)",
    detail: "Le propriétaire du site n'autorise pas l'intégration de cette ressource depuis d'autres sites.",
    whatYouShouldDo: "**Ne réessayez pas.** Ouvrez la ressource depuis le site lui-même, et non depuis un autre site.",
  },
  1012: {
    title: "Accès refusé",
    detail:
      "Le propriétaire du site a bloqué cette requête, par exemple en raison d'une activité suspecte depuis votre adresse.",
    whatYouShouldDo: BLOCKED,
  },
  1013: {
    title: "Le nom d'hôte HTTP et le nom d'hôte TLS SNI ne correspondent pas",
    detail: "Le nom d'hôte de la requête HTTP diffère de celui envoyé lors de la négociation TLS (SNI).",
    whatYouShouldDo:
      "**Ne réessayez pas tel quel.** Envoyez le même nom d'hôte dans la négociation TLS et dans la requête ; vérifiez tout proxy intermédiaire.",
  },
  1014: {
    title: "CNAME entre comptes interdit",
    detail: "Le nom d'hôte est un CNAME vers une zone d'un autre compte, ce que le réseau edge n'autorise pas.",
    whatYouShouldDo:
      "**Ne réessayez pas.** L'exploitant du site doit faire pointer le nom d'hôte vers une zone de son propre compte.",
  },
  1015: {
    title: "Vos requêtes sont limitées",
    detail: "La configuration du propriétaire du site limite la fréquence de vos requêtes.",
    whatYouShouldDo: (w) =>
      `**Patientez puis réessayez.** Ce blocage est temporaire. Attendez au moins ${sec(w)}, puis réessayez.\n\nDémarche recommandée${NBSP}:\n1. Attendez ${sec(w)} avant votre prochaine requête\n2. Si vous êtes de nouveau limité, attendez le temps indiqué par le Retry-After de cette réponse${NBSP}: c'est le temps restant avant la fin du blocage\n3. Si la limitation persiste après 5${NBSP}tentatives, arrêtez et revoyez votre façon d'envoyer les requêtes`,
  },
  1016: {
    title: "Erreur DNS de l'origine",
    detail: "Le réseau edge n'a pas pu résoudre le nom d'hôte du serveur d'origine du site.",
    whatYouShouldDo:
      "**Ne réessayez pas.** L'exploitant du site doit corriger l'enregistrement DNS de l'origine (ou l'adresse de l'origine dans la configuration de la zone).",
  },
  1017: CLIENT_TLS,
  1018: {
    title: "Hôte introuvable",
    detail:
      "Le réseau edge n'a pas trouvé l'hôte demandé, par exemple parce que la zone vient tout juste d'être ajoutée.",
    whatYouShouldDo:
      "**Ne réessayez pas.** L'exploitant du site doit vérifier la configuration du nom d'hôte sur le réseau edge ; une zone ajoutée très récemment peut mettre quelques minutes à se propager.",
  },
  1019: {
    title: "Erreur du serveur de calcul",
    detail: "Un script du site s'est appelé lui-même de façon récursive et le réseau edge a interrompu la boucle.",
    whatYouShouldDo: "**Ne réessayez pas.** L'exploitant du site doit corriger la récursion du script.",
  },
  1020: {
    title: "Accès refusé",
    detail: "La requête a été bloquée par une règle de pare-feu configurée par le propriétaire du site.",
    whatYouShouldDo: BLOCKED,
  },
  1023: {
    title: "Hôte introuvable",
    detail: "Le réseau edge n'a pas trouvé l'hôte demandé dans la configuration DNS de son partenaire.",
    whatYouShouldDo: "**Ne réessayez pas.** L'exploitant du site doit vérifier la configuration DNS du nom d'hôte.",
  },
  1025: {
    title: "Veuillez réessayer plus tard",
    detail: "Le site a atteint une limite de requêtes de son offre.",
    whatYouShouldDo:
      "**Ne réessayez pas.** Le site a épuisé une limite de requêtes de son offre ; seul son exploitant peut la relever.",
  },
  1026: {
    title: "Indisponible pour des raisons juridiques",
    detail: "L'accès à ce contenu est restreint pour des raisons juridiques.",
    whatYouShouldDo: LEGAL,
  },
  1027: {
    title: "Ce site est temporairement limité",
    detail:
      "Le propriétaire du site a dépassé la limite quotidienne de requêtes de l'offre gratuite de Workers. La limite est réinitialisée à minuit UTC.",
    whatYouShouldDo:
      "**Ne réessayez pas.** La limite quotidienne de requêtes du site est réinitialisée à minuit UTC ; d'ici là, chaque requête reçoit cette erreur.",
  },
  1028: CLIENT_TLS,
  1029: CLIENT_TLS,
  1033: {
    title: "Erreur de tunnel",
    detail: "L'hôte est configuré comme tunnel, mais le réseau edge ne parvient pas à le joindre pour le moment.",
    whatYouShouldDo: (w) =>
      waitThen(w, "l'exploitant du site devrait vérifier que le connecteur du tunnel fonctionne."),
  },
  1034: {
    title: "IP edge restreinte",
    detail: "Le DNS du site pointe vers une adresse que le réseau edge n'accepte pas comme origine.",
    whatYouShouldDo: "**Ne réessayez pas.** L'exploitant du site doit corriger l'enregistrement DNS du nom d'hôte.",
  },
  1035: {
    title: "Réécriture de requête invalide (chemin d'URI invalide)",
    detail: "Une règle de réécriture d'URL du site a produit un chemin d'URI invalide.",
    whatYouShouldDo: FIX_REWRITE,
  },
  1036: {
    title: "Réécriture de requête invalide (longueur maximale dépassée)",
    detail: "Une règle de réécriture d'URL du site a produit une valeur plus longue que permis.",
    whatYouShouldDo: FIX_REWRITE,
  },
  1037: {
    title: "Règle de réécriture invalide (échec de l'évaluation de l'expression)",
    detail: "Une règle de réécriture du site n'a pas pu évaluer son expression pour cette requête.",
    whatYouShouldDo: "**Ne réessayez pas.** L'exploitant du site doit corriger l'expression de la règle de réécriture.",
  },
  1038: {
    title: "Limite des en-têtes HTTP dépassée",
    detail: "Les en-têtes de la requête dépassent la taille autorisée par le site.",
    whatYouShouldDo: (w) =>
      `**Patientez puis réessayez avec des en-têtes plus petits.** Attendez au moins ${sec(w)} et envoyez moins d'en-têtes, ou des en-têtes plus courts (les cookies surtout).`,
  },
  1039: {
    title: "Restriction juridique",
    detail: `L'accès depuis votre emplacement est restreint pour des raisons juridiques. ${UNPUBLISHED}`,
    whatYouShouldDo: LEGAL,
  },
  1040: {
    title: "Réécriture de requête invalide (modification de l'en-tête interdite)",
    detail: "Une règle de transformation du site a tenté de modifier un en-tête qui ne peut pas l'être.",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1041: {
    title: "Réécriture de requête invalide (valeur d'en-tête invalide)",
    detail: "Une règle de transformation du site a produit une valeur d'en-tête invalide.",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1042: {
    title: "Script introuvable",
    detail: "Un script du site a appelé un autre script du même compte, qui n'est pas joignable de cette manière.",
    whatYouShouldDo:
      "**Ne réessayez pas.** L'exploitant du site doit appeler l'autre script via un binding ou une route.",
  },
  1043: ZONE_CONFIG,
  1044: {
    title: "Chiffrement TLS non conforme à FIPS",
    detail: "Votre client a négocié une suite de chiffrement TLS que la politique FIPS du site n'autorise pas.",
    whatYouShouldDo:
      "**Ne réessayez pas tel quel.** Utilisez un client TLS qui propose des suites de chiffrement approuvées FIPS.",
  },
  1045: {
    title: "Fonctionnalité ou protocole non pris en charge",
    detail: `La requête utilise une fonctionnalité ou un protocole que le réseau edge ne prend pas en charge. ${UNPUBLISHED}`,
    whatYouShouldDo:
      "**Ne réessayez pas tel quel.** Envoyez la requête avec un protocole et des fonctionnalités pris en charge.",
  },
  1047: ZONE_CONFIG,
  1049: ZONE_CONFIG,
  1100: WORKER_FAILED,
  1101: {
    title: "Le Worker a levé une exception",
    detail: "Le script qui sert ce site a levé une exception en traitant la requête.",
    whatYouShouldDo:
      "**Ne réessayez pas.** L'échec vient du script du site ; communiquez le Ray ID à l'exploitant du site.",
  },
  1102: {
    title: "Le Worker a dépassé ses limites de ressources",
    detail: "Un script Worker configuré par le propriétaire du site a dépassé ses limites de ressources.",
    whatYouShouldDo:
      "**Ne réessayez pas.** L'exploitant du site doit réduire la consommation de CPU ou de mémoire du script.",
  },
  1103: WORKER_FAILED,
  1104: WORKER_FAILED,
  1105: {
    title: "Worker temporairement indisponible",
    detail: `Un script du site n'a pas pu être exécuté. ${UNPUBLISHED}`,
    whatYouShouldDo: "**Ne réessayez pas.** L'exploitant du site doit vérifier le déploiement du script.",
  },
  1106: IP_BANNED,
  1107: REQUEST_BLOCKED,
  1108: REQUEST_BLOCKED,
  1109: REQUEST_BLOCKED,
  1200: {
    title: "Limite de connexions du cache",
    detail: "Trop de requêtes attendent le serveur d'origine sur le réseau edge : celle-ci a donc été refusée.".replace(
      " :",
      `${NBSP}:`,
    ),
    whatYouShouldDo: (w) =>
      waitThen(w, "l'exploitant du site devrait chercher pourquoi l'origine répond si lentement."),
  },
  1201: SNIPPET_FAILED,
  1202: SNIPPET_FAILED,
  1203: SNIPPET_FAILED,
  1204: SNIPPET_FAILED,
  1205: {
    title: "Trop de redirections",
    detail: "Un snippet du site a redirigé ou relancé la requête trop de fois pendant son traitement.",
    whatYouShouldDo: (w) =>
      waitThen(w, "l'exploitant du site devrait vérifier que le snippet ne contient pas de boucle de redirection."),
  },
  1206: SNIPPET_FAILED,
};

const WORDS: Words = {
  language: "fr",
  errorTitle: (code, title) => `Erreur ${code}${NBSP}: ${title}`,
  footer: (operator) => `Cette erreur a été générée par ${operator} pour le compte du propriétaire du site.`,
  seconds: sec,

  ownerBlock: "Seul le propriétaire du site peut lever ce blocage.",
  ownerFix: "Le propriétaire du site doit corriger le problème.",
  ownerNone: "Le propriétaire du site n'a rien à faire.",
  notRetryableLead: "Réessayer ne servira à rien",
  notRetryableBlock: " tant que le blocage est en place.",
  notRetryableFix: " tant que la cause n'est pas corrigée.",
  notRetryableSame: `${NBSP}: la même requête obtiendra la même réponse.`,
  retryHelpsLead: `Réessayer peut aider${NBSP}:`,
  retryHelpsWait: (wait) => ` réessayez dans ${wait}.`,

  eyebrow: (code, status) => `Erreur ${code} · HTTP ${status}`,
  whatHappened: "Que s'est-il passé ?".replace(" ?", `${NBSP}?`),
  whatYouCanDo: "Que pouvez-vous faire ?".replace(" ?", `${NBSP}?`),
  details: "Détails",
  rayId: "Ray ID",
  copy: "Copier",
  copied: "Copié",
  selectAndCopy: "Sélectionner et copier",
  timeUtc: "Heure (UTC)",
  website: "Site web",
  httpStatus: "Statut HTTP",
  errorName: "Nom de l'erreur",
  category: "Catégorie",
  moreHelp: "Plus d'aide",
  aboutError: (code) => `À propos de l'erreur ${code}`,

  whereItBroke: "Où se situe la panne",
  hopYou: "Vous",
  hopEdge: "Réseau edge",
  hopWebsite: "Site web",
  subYou: "Navigateur ou app",
  subEdge: "Réseau",
  originServer: "Serveur d'origine",
  stateWorking: "Fonctionne",
  stateError: "Erreur",
  stateBlocked: "Bloqué",
  stateNotReached: "Non atteint",

  mdWhatHappened: "Que s'est-il passé ?".replace(" ?", `${NBSP}?`),
  mdWhatYouShouldDo: "Que faire ?".replace(" ?", `${NBSP}?`),
  mdMoreHelp: "Plus d'aide",

  ref: {
    errorCodes: "Codes d'erreur",
    eyebrow: "Référence",
    lead: "Toutes les erreurs que le réseau edge peut générer, classées par classe et par catégorie. Chaque code mène à sa page : statut, comportement en cas de nouvelle tentative, ce qui s'est passé et ce qu'il faut faire.".replace(
      " :",
      `${NBSP}:`,
    ),
    filter: "Filtrer",
    filterPlaceholder: "Code, titre, nom ou catégorie",
    filterCount: "{n} codes sur {total}",
    class5xx: "Erreurs 5xx",
    class5xxAbout: "Erreurs serveur générées par le réseau edge quand il n'obtient pas de réponse du site.",
    class1xxx: "Erreurs 1xxx",
    class1xxxAbout: `Erreurs du réseau edge${NBSP}: la requête a été refusée ou n'a pas pu être traitée par le réseau edge.`,
    categories: {
      origin: `Origine${NBSP}: le serveur du site`,
      edge: `Edge${NBSP}: le réseau edge lui-même`,
      ssl: `SSL${NBSP}: le certificat du site`,
      access_denied: "Accès refusé",
      rate_limit: "Limitation du débit",
      dns: "DNS",
      config: "Configuration du site",
      tls: `TLS${NBSP}: la connexion du client`,
      legal: "Juridique",
      worker: `Workers${NBSP}: le code du site`,
      rewrite: "Règles de réécriture",
      snippet: "Snippets",
      unsupported: "Non pris en charge",
    },
    noRetry: "pas de nouvelle tentative",
    retryAfterChip: (s) => `réessayer après ${s}${NBSP}s`,
    ownerAction: "action du propriétaire",
    ownerActionLabel: "Action du propriétaire",
    yes: "oui",
    no: "non",
    allCodes: "Tous les codes d'erreur",
    atAGlance: "En bref",
    retry: "Nouvelle tentative",
    notRetryable: (lead, reason) => `Pas de nouvelle tentative. ${lead}${reason} Pas d'en-tête Retry-After.`,
    retryable: (wait, s) =>
      `Nouvelle tentative possible${NBSP}: attendez ${wait} (Retry-After${NBSP}: ${s}${NBSP}; une règle de limitation du débit peut fixer sa propre valeur).`,
    required: "Requise.",
    notRequired: "Non requise.",
    whatToDo: "Que faire ?".replace(" ?", `${NBSP}?`),
    formats: "Formats",
    formatsLead: ["L'erreur est servie dans le format que préfère l'en-tête ", ` du client${NBSP}:`],
    formatHtml: "navigateurs et clients sans préférence.",
    formatJson: ["ou", "les mêmes 17 champs."],
    formatMarkdown: "front matter YAML, puis ce qui s'est passé et ce qu'il faut faire.",
  },
};

export const FR: Translation = { words: WORDS, codes: CODES };
