/**
 * Spanish (`es`): every code's texts and the words around them, written for Spanish readers (docs/languages.md).
 * Codes, numbers, header names and product names stay as they are. Pure.
 */
import type { CatalogCode, CodeText, Translation, Words } from "./words";

const sec = (n: number): string => `${n} ${n === 1 ? "segundo" : "segundos"}`;

/** The opening of every retryable guidance: wait, then what the operator should look at if it persists. */
const waitThen = (wait: number, operator: string): string =>
  `**Espere y vuelva a intentarlo.** Espere al menos ${sec(wait)}. Si el error continúa, ${operator}`;

const BLOCKED =
  "**No lo vuelva a intentar.** Este bloqueo es intencionado. Póngase en contacto con el propietario del sitio si cree que se trata de un error.";
const UNPUBLISHED = "El significado exacto de este código no está publicado.";
const IP_BANNED: CodeText = {
  title: "Acceso denegado: su dirección IP ha sido bloqueada",
  detail: "El propietario del sitio web ha bloqueado su dirección IP.",
  whatYouShouldDo: BLOCKED,
};
const CLIENT_TLS: CodeText = {
  title: "Error de TLS del cliente",
  detail: `La conexión TLS de su cliente no cumple los requisitos del sitio web. ${UNPUBLISHED}`,
  whatYouShouldDo:
    "**No lo vuelva a intentar tal cual.** Use un cliente TLS actualizado (versión, conjuntos de cifrado y certificado).",
};
const ZONE_CONFIG: CodeText = {
  title: "Error de configuración de la zona",
  detail: `La configuración del sitio web en la red edge impide atender esta solicitud. ${UNPUBLISHED}`,
  whatYouShouldDo: "**No lo vuelva a intentar.** El operador del sitio web debe revisar la configuración de la zona.",
};
const WORKER_FAILED: CodeText = {
  title: "Error del Worker",
  detail: `Ha fallado un script del sitio web. ${UNPUBLISHED}`,
  whatYouShouldDo: "**No lo vuelva a intentar.** El operador del sitio web debe revisar los registros del script.",
};
const REQUEST_BLOCKED: CodeText = {
  title: "Acceso denegado",
  detail: `El propietario del sitio web ha bloqueado esta solicitud. ${UNPUBLISHED}`,
  whatYouShouldDo: BLOCKED,
};
const SNIPPET_FAILED: CodeText = {
  title: "Error de snippet",
  detail: `Ha fallado un snippet configurado por el sitio web. ${UNPUBLISHED}`,
  whatYouShouldDo: "**No lo vuelva a intentar.** El operador del sitio web debe revisar los snippets de la zona.",
};
const FIX_REWRITE = "**No lo vuelva a intentar.** El operador del sitio web debe corregir la regla de reescritura.";
const FIX_TRANSFORM =
  "**No lo vuelva a intentar.** El operador del sitio web debe corregir la regla de transformación.";
const LEGAL =
  "**No lo vuelva a intentar.** La restricción es de carácter legal y no desaparecerá por volver a intentarlo.";

const CODES: Readonly<Record<CatalogCode, CodeText>> = {
  500: {
    title: "Error interno del servidor",
    detail:
      "La red edge ha sufrido un error interno al procesar esta solicitud. El servidor de origen no tiene por qué estar implicado.",
    whatYouShouldDo: (w) =>
      `**Espere y vuelva a intentarlo.** Espere al menos ${sec(w)}. Si el error continúa, comunique el Ray ID al operador del sitio web.`,
  },
  502: {
    title: "Puerta de enlace incorrecta",
    detail:
      "El servidor de origen del sitio web ha devuelto a la red edge una respuesta no válida o incompleta. Suele indicar que el origen está sobrecargado o mal configurado.",
    whatYouShouldDo: (w) =>
      waitThen(w, "el operador del sitio web debería revisar el estado y la configuración de su servidor de origen."),
  },
  504: {
    title: "Tiempo de espera de la puerta de enlace agotado",
    detail:
      "El servidor de origen del sitio web no ha respondido a la red edge dentro del tiempo permitido. Suele significar que el origen está sobrecargado o que un proceso del backend tarda demasiado.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "el operador del sitio web debería investigar los procesos de larga duración del servidor de origen.",
      ),
  },
  520: {
    title: "El servidor web devuelve un error desconocido",
    detail:
      "El servidor de origen del sitio web ha enviado una respuesta que la red edge no ha podido interpretar, o ha cerrado la conexión antes de completarla.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "el operador del sitio web debería buscar en los registros del origen bloqueos, respuestas vacías o cabeceras mal formadas.",
      ),
  },
  521: {
    title: "El servidor web no está disponible",
    detail:
      "El servidor de origen del sitio web ha rechazado la conexión de la red edge. El origen está desconectado o está bloqueando la red edge.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "el operador del sitio web debería comprobar que el servidor de origen está en marcha y acepta conexiones de la red edge.",
      ),
  },
  522: {
    title: "Se agotó el tiempo de conexión",
    detail:
      "La red edge no ha podido establecer una conexión TCP con el servidor de origen. Se agotó el tiempo del handshake TCP, lo que puede indicar que el origen está sobrecargado, que su cortafuegos bloquea la red edge o que no es accesible a nivel de red.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "el operador del sitio web debería revisar las reglas del cortafuegos y asegurarse de que el origen acepta conexiones desde los rangos de IP de la red edge.",
      ),
  },
  523: {
    title: "No se puede acceder al origen",
    detail: "La red edge no tiene ninguna ruta de red hacia la dirección del servidor de origen.",
    whatYouShouldDo: (w) =>
      waitThen(w, "el operador del sitio web debería comprobar la dirección del origen y su enrutamiento de red."),
  },
  524: {
    title: "Se agotó el tiempo de espera",
    detail: (timeout) =>
      `El servidor de origen del sitio web no ha devuelto una respuesta completa dentro del plazo de ${sec(timeout)} del Proxy Read Timeout. La conexión llegó a establecerse, pero el origen tardó demasiado en responder.`,
    whatYouShouldDo: (w) =>
      waitThen(w, "el operador del sitio web debería buscar procesos de larga duración o una sobrecarga del origen."),
  },
  525: {
    title: "Falló el handshake SSL",
    detail: "Ha fallado el handshake TLS entre la red edge y el servidor de origen.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** La configuración TLS del origen es defectuosa; volver a intentarlo no servirá hasta que el operador del sitio web la corrija.",
  },
  526: {
    title: "Certificado SSL no válido",
    detail:
      "El servidor de origen ha presentado un certificado que la red edge no ha podido validar (caducado, autofirmado o emitido para otro nombre).",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** No servirá de nada hasta que el operador del sitio web instale un certificado válido en el origen.",
  },

  1000: {
    title: "El DNS apunta a una IP prohibida",
    detail:
      "El DNS o el origen del sitio web apunta de vuelta a la propia red edge, por lo que la solicitud entraría en un bucle. La red edge la ha detenido.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El operador del sitio web debe apuntar el origen de la zona a un servidor que no sea la propia red edge.",
  },
  1001: {
    title: "Error de resolución DNS",
    detail:
      "El nombre de host solicitado no está configurado en la red edge, así que esta no sabe adónde enviar la solicitud.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** Compruebe el nombre de host. Si es correcto, el operador del sitio web debe configurar la zona en la red edge.",
  },
  1002: {
    title: "El DNS apunta a una IP prohibida",
    detail: "El registro DNS del sitio web apunta a una dirección que la red edge no admite como origen.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El operador del sitio web debe cambiar el registro DNS a la dirección real del servidor de origen.",
  },
  1003: {
    title: "Acceso denegado: no se permite el acceso directo por IP",
    detail:
      "La solicitud se ha dirigido a la red edge por su dirección IP en lugar de por el nombre de host de un sitio web.",
    whatYouShouldDo:
      "**No lo vuelva a intentar tal cual.** Acceda al sitio web por su nombre de host, no por la dirección IP de la red edge.",
  },
  1004: {
    title: "Host no configurado para servir tráfico web",
    detail:
      "La red edge conoce el nombre de host, pero todavía no está configurado para servir tráfico web; por ejemplo, porque su DNS aún se está propagando.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "el operador del sitio web debería comprobar que el nombre de host pasa por el proxy y que su DNS se ha propagado.",
      ),
  },
  1005: {
    title: "Acceso denegado: sistema autónomo (ASN) bloqueado",
    detail: "El propietario del sitio web ha bloqueado la red (ASN) a la que pertenece su dirección IP.",
    whatYouShouldDo: BLOCKED,
  },
  1006: {
    title: "Acceso denegado: su dirección IP ha sido bloqueada",
    detail: "El propietario del sitio web ha bloqueado su dirección IP (o un rango que la incluye).",
    whatYouShouldDo: BLOCKED,
  },
  1007: IP_BANNED,
  1008: IP_BANNED,
  1009: {
    title: "Acceso denegado",
    detail: "El propietario del sitio ha bloqueado el país o la región asociados a su dirección IP.",
    whatYouShouldDo: BLOCKED,
  },
  1010: {
    title: "Acceso denegado",
    detail: "El propietario del sitio ha bloqueado el acceso según la firma de su navegador.",
    whatYouShouldDo: "**No lo vuelva a intentar.** El propietario del sitio ha bloqueado su user-agent.",
  },
  1011: {
    title: "Acceso denegado (hotlinking no permitido)",
    detail: "El propietario del sitio web no permite que este recurso se inserte desde otros sitios.",
    whatYouShouldDo: "**No lo vuelva a intentar.** Abra el recurso desde el propio sitio web, no desde otro sitio.",
  },
  1012: {
    title: "Acceso denegado",
    detail:
      "El propietario del sitio web ha bloqueado esta solicitud; por ejemplo, por actividad sospechosa desde su dirección.",
    whatYouShouldDo: BLOCKED,
  },
  1013: {
    title: "El nombre de host HTTP y el de TLS SNI no coinciden",
    detail: "El nombre de host de la solicitud HTTP no coincide con el enviado en el handshake TLS (SNI).",
    whatYouShouldDo:
      "**No lo vuelva a intentar tal cual.** Envíe el mismo nombre de host en el handshake TLS y en la solicitud, y revise cualquier proxy intermedio.",
  },
  1014: {
    title: "CNAME entre cuentas no permitido",
    detail: "El nombre de host es un CNAME hacia una zona de otra cuenta, algo que la red edge no permite.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El operador del sitio web debe apuntar el nombre de host a una zona de su propia cuenta.",
  },
  1015: {
    title: "Se están limitando sus solicitudes",
    detail: "La configuración del propietario del sitio web está limitando la frecuencia de sus solicitudes.",
    whatYouShouldDo: (w) =>
      `**Espere y vuelva a intentarlo.** Este bloqueo es temporal. Espere al menos ${sec(w)} y vuelva a intentarlo.\n\nCómo proceder:\n1. Espere ${sec(w)} antes de la siguiente solicitud\n2. Si vuelve a recibir este límite, espere lo que indique el Retry-After de esa respuesta: es el tiempo que falta para que termine el bloqueo\n3. Si el límite persiste tras 5 intentos, deténgase y replantee su patrón de solicitudes`,
  },
  1016: {
    title: "Error de DNS del origen",
    detail: "La red edge no ha podido resolver el nombre de host del servidor de origen del sitio web.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El operador del sitio web debe corregir el registro DNS del origen (o la dirección del origen en la configuración de la zona).",
  },
  1017: CLIENT_TLS,
  1018: {
    title: "No se encuentra el host",
    detail: "La red edge no ha encontrado el host solicitado; por ejemplo, porque la zona se añadió hace muy poco.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El operador del sitio web debe revisar la configuración del nombre de host en la red edge; una zona recién añadida puede tardar unos minutos en propagarse.",
  },
  1019: {
    title: "Error del servidor de cómputo",
    detail: "Un script del sitio web se ha llamado a sí mismo de forma recursiva y la red edge ha detenido el bucle.",
    whatYouShouldDo: "**No lo vuelva a intentar.** El operador del sitio web debe corregir la recursión del script.",
  },
  1020: {
    title: "Acceso denegado",
    detail: "Una regla de cortafuegos configurada por el propietario del sitio ha bloqueado la solicitud.",
    whatYouShouldDo: BLOCKED,
  },
  1023: {
    title: "No se encuentra el host",
    detail: "La red edge no ha encontrado el host solicitado en su configuración DNS para partners.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El operador del sitio web debe revisar la configuración DNS del nombre de host.",
  },
  1025: {
    title: "Vuelva a intentarlo más tarde",
    detail: "El sitio web ha alcanzado un límite de solicitudes de su plan.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El sitio web ha agotado un límite de solicitudes de su plan; solo su operador puede ampliarlo.",
  },
  1026: {
    title: "No disponible por motivos legales",
    detail: "El acceso a este contenido está restringido por motivos legales.",
    whatYouShouldDo: LEGAL,
  },
  1027: {
    title: "Este sitio web está limitado temporalmente",
    detail:
      "El propietario del sitio ha superado el límite diario de solicitudes del plan gratuito de Workers. El límite se restablece a medianoche UTC.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El límite diario de solicitudes del sitio web se restablece a medianoche UTC; hasta entonces, todas las solicitudes reciben este error.",
  },
  1028: CLIENT_TLS,
  1029: CLIENT_TLS,
  1033: {
    title: "Error del túnel",
    detail: "El host está configurado como túnel, pero la red edge no puede llegar a él en este momento.",
    whatYouShouldDo: (w) =>
      waitThen(w, "el operador del sitio web debería comprobar que el conector del túnel está en marcha."),
  },
  1034: {
    title: "IP de edge restringida",
    detail: "El DNS del sitio web apunta a una dirección que la red edge no acepta como origen.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El operador del sitio web debe corregir el registro DNS del nombre de host.",
  },
  1035: {
    title: "Reescritura de solicitud no válida (ruta URI no válida)",
    detail: "Una regla de reescritura de URL del sitio web ha generado una ruta URI no válida.",
    whatYouShouldDo: FIX_REWRITE,
  },
  1036: {
    title: "Reescritura de solicitud no válida (longitud máxima superada)",
    detail: "Una regla de reescritura de URL del sitio web ha generado un valor más largo de lo permitido.",
    whatYouShouldDo: FIX_REWRITE,
  },
  1037: {
    title: "Regla de reescritura no válida (no se pudo evaluar la expresión)",
    detail: "Una regla de reescritura del sitio web no ha podido evaluar su expresión para esta solicitud.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El operador del sitio web debe corregir la expresión de la regla de reescritura.",
  },
  1038: {
    title: "Se superó el límite de cabeceras HTTP",
    detail: "Las cabeceras de la solicitud superan el tamaño que admite el sitio web.",
    whatYouShouldDo: (w) =>
      `**Espere y vuelva a intentarlo con cabeceras más pequeñas.** Espere al menos ${sec(w)} y envíe menos cabeceras o más pequeñas (sobre todo cookies).`,
  },
  1039: {
    title: "Restricción legal",
    detail: `El acceso desde su ubicación está restringido por motivos legales. ${UNPUBLISHED}`,
    whatYouShouldDo: LEGAL,
  },
  1040: {
    title: "Reescritura de solicitud no válida (no se permite modificar la cabecera)",
    detail: "Una regla de transformación del sitio web ha intentado modificar una cabecera que no se puede modificar.",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1041: {
    title: "Reescritura de solicitud no válida (valor de cabecera no válido)",
    detail: "Una regla de transformación del sitio web ha generado un valor de cabecera no válido.",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1042: {
    title: "Script no encontrado",
    detail:
      "Un script del sitio web ha llamado a otro script de la misma cuenta al que no se puede acceder de esta manera.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El operador del sitio web debe llamar al otro script mediante un binding o una ruta.",
  },
  1043: ZONE_CONFIG,
  1044: {
    title: "Cifrado TLS no conforme con FIPS",
    detail: "Su cliente ha negociado un conjunto de cifrado TLS que la política FIPS del sitio web no permite.",
    whatYouShouldDo:
      "**No lo vuelva a intentar tal cual.** Use un cliente TLS que ofrezca conjuntos de cifrado aprobados por FIPS.",
  },
  1045: {
    title: "Función o protocolo no admitido",
    detail: `La solicitud usa una función o un protocolo que la red edge no admite. ${UNPUBLISHED}`,
    whatYouShouldDo:
      "**No lo vuelva a intentar tal cual.** Envíe la solicitud con un protocolo y unas funciones admitidos.",
  },
  1047: ZONE_CONFIG,
  1049: ZONE_CONFIG,
  1100: WORKER_FAILED,
  1101: {
    title: "El Worker generó una excepción",
    detail: "El script que sirve este sitio web ha generado una excepción al procesar la solicitud.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El fallo está en el script del sitio web; comunique el Ray ID al operador del sitio web.",
  },
  1102: {
    title: "El Worker superó sus límites de recursos",
    detail: "Un script de Worker configurado por el propietario del sitio web ha superado sus límites de recursos.",
    whatYouShouldDo:
      "**No lo vuelva a intentar.** El operador del sitio web debe reducir el uso de CPU o de memoria del script.",
  },
  1103: WORKER_FAILED,
  1104: WORKER_FAILED,
  1105: {
    title: "Worker no disponible temporalmente",
    detail: `No se ha podido ejecutar un script del sitio web. ${UNPUBLISHED}`,
    whatYouShouldDo: "**No lo vuelva a intentar.** El operador del sitio web debe revisar el despliegue del script.",
  },
  1106: IP_BANNED,
  1107: REQUEST_BLOCKED,
  1108: REQUEST_BLOCKED,
  1109: REQUEST_BLOCKED,
  1200: {
    title: "Límite de conexiones de la caché",
    detail: "Hay demasiadas solicitudes en la red edge esperando al servidor de origen, así que esta se ha rechazado.",
    whatYouShouldDo: (w) =>
      waitThen(w, "el operador del sitio web debería averiguar por qué el origen responde con lentitud."),
  },
  1201: SNIPPET_FAILED,
  1202: SNIPPET_FAILED,
  1203: SNIPPET_FAILED,
  1204: SNIPPET_FAILED,
  1205: {
    title: "Demasiadas redirecciones",
    detail:
      "Un snippet del sitio web ha redirigido o vuelto a solicitar el recurso demasiadas veces al procesar esta solicitud.",
    whatYouShouldDo: (w) =>
      waitThen(w, "el operador del sitio web debería comprobar si el snippet tiene bucles de redirección."),
  },
  1206: SNIPPET_FAILED,
};

const WORDS: Words = {
  language: "es",
  errorTitle: (code, title) => `Error ${code}: ${title}`,
  footer: (operator) => `Este error lo ha generado ${operator} en nombre del propietario del sitio web.`,
  seconds: sec,

  ownerBlock: "Solo el propietario del sitio web puede levantar este bloqueo.",
  ownerFix: "El propietario del sitio web tiene que solucionarlo.",
  ownerNone: "El propietario del sitio web no tiene que hacer nada.",
  notRetryableLead: "Volver a intentarlo no servirá",
  notRetryableBlock: " mientras el bloqueo siga activo.",
  notRetryableFix: " hasta que se corrija la causa.",
  notRetryableSame: ": la misma solicitud recibirá la misma respuesta.",
  retryHelpsLead: "Vale la pena reintentar:",
  retryHelpsWait: (wait) => ` inténtelo de nuevo dentro de ${wait}.`,

  eyebrow: (code, status) => `Error ${code} · HTTP ${status}`,
  whatHappened: "Qué ha pasado",
  whatYouCanDo: "Qué puede hacer",
  details: "Detalles",
  rayId: "Ray ID",
  copy: "Copiar",
  copied: "Copiado",
  selectAndCopy: "Seleccionar y copiar",
  timeUtc: "Hora (UTC)",
  website: "Sitio web",
  httpStatus: "Estado HTTP",
  errorName: "Nombre del error",
  category: "Categoría",
  moreHelp: "Más ayuda",
  aboutError: (code) => `Acerca del error ${code}`,

  whereItBroke: "Dónde está el fallo",
  hopYou: "Usted",
  hopEdge: "Red edge",
  hopWebsite: "Sitio web",
  subYou: "Navegador o app",
  subEdge: "Red",
  originServer: "Servidor de origen",
  stateWorking: "Funciona",
  stateError: "Error",
  stateBlocked: "Bloqueado",
  stateNotReached: "No alcanzado",

  mdWhatHappened: "Qué ha pasado",
  mdWhatYouShouldDo: "Qué debe hacer",
  mdMoreHelp: "Más ayuda",

  ref: {
    errorCodes: "Códigos de error",
    eyebrow: "Referencia",
    lead: "Todos los errores que puede generar la red edge, agrupados por clase y categoría. Cada código enlaza con su página: estado, comportamiento ante reintentos, qué ha pasado y qué hacer.",
    filter: "Filtrar",
    filterPlaceholder: "Código, título, nombre o categoría",
    filterCount: "{n} de {total} códigos",
    class5xx: "Errores 5xx",
    class5xxAbout: "Errores de servidor que genera la red edge cuando no consigue una respuesta del sitio web.",
    class1xxx: "Errores 1xxx",
    class1xxxAbout: "Errores de la red edge: la solicitud se rechazó o la red edge no pudo procesarla.",
    categories: {
      origin: "Origen: el servidor del sitio web",
      edge: "Edge: la propia red edge",
      ssl: "SSL: el certificado del sitio web",
      access_denied: "Acceso denegado",
      rate_limit: "Limitación de velocidad",
      dns: "DNS",
      config: "Configuración del sitio web",
      tls: "TLS: la conexión del cliente",
      legal: "Legal",
      worker: "Workers: el código del sitio web",
      rewrite: "Reglas de reescritura",
      snippet: "Snippets",
      unsupported: "No admitido",
    },
    noRetry: "sin reintento",
    retryAfterChip: (s) => `reintentar tras ${s} s`,
    ownerAction: "acción del propietario",
    ownerActionLabel: "Acción del propietario",
    yes: "sí",
    no: "no",
    allCodes: "Todos los códigos de error",
    atAGlance: "De un vistazo",
    retry: "Reintento",
    notRetryable: (lead, reason) => `No se puede reintentar. ${lead}${reason} Sin cabecera Retry-After.`,
    retryable: (wait, s) =>
      `Se puede reintentar: espere ${wait} (Retry-After: ${s}; una regla de limitación de velocidad puede fijar su propio valor).`,
    required: "Necesaria.",
    notRequired: "No necesaria.",
    whatToDo: "Qué hacer",
    formats: "Formatos",
    formatsLead: ["El error se sirve en el formato que prefiere la cabecera ", " del cliente:"],
    formatHtml: "navegadores y clientes sin preferencia.",
    formatJson: ["o", "los mismos 17 campos."],
    formatMarkdown: "front matter YAML y, a continuación, qué ha pasado y qué hacer.",
  },
};

export const ES: Translation = { words: WORDS, codes: CODES };
